"""Thresholds, tolerances and defaults of the Rasch tool, in one place.

Kernels never hold literals: wrappers read these and pass them in.
"""

from __future__ import annotations

# --- Estimation (joint maximum likelihood) -----------------------------------

#: Converged when no measure moved more than this in the last sweep, in logits ...
CONVERGENCE_LOGITS = 1e-6

#: ... and no system's or question's observed score is further than this from
#: its expected score, in score points (Winsteps calls these LCONV and RCONV;
#: its defaults stop short of full convergence).
CONVERGENCE_SCORE = 0.01

#: Sweeps before estimation gives up and reports ``converged=False``.
MAX_ITERATIONS = 500

#: Largest change of one measure in one Newton step, in logits; keeps the first
#: sweeps from overshooting when the start is far off.
MAX_NEWTON_STEP = 1.0

#: Any measure beyond this many logits means the estimates run off to infinity;
#: also the largest anchor accepted.
DIVERGENCE_LOGITS = 40.0

#: Without convergence after this many sweeps, check whether finite estimates
#: exist at all (a strongly connected right/wrong graph, Fischer 1981) before
#: going on. Well-posed data converge in far fewer sweeps.
EXISTENCE_CHECK_SWEEP = 100

#: Extreme scores (all right or all wrong) are measured as if this many score
#: points had gone the other way (Winsteps' EXTRSC default).
EXTREME_SCORE_ADJUSTMENT = 0.3

# --- Fit statistics -----------------------------------------------------------

#: In the model variance of outfit, a response variance W with W**2 below this
#: is replaced by sqrt(this) in the denominator (as Winsteps does), so a few
#: wildly off-target responses cannot inflate the variance without bound.
OUTFIT_VARIANCE_FLOOR_SQUARED = 1e-5

#: Largest standard deviation of a mean-square used in the Wilson-Hilferty
#: transform to ZSTD (sqrt(2), as Winsteps).
ZSTD_MAX_Q = 1.4142

#: Rule-of-thumb range of acceptable mean-squares (paper, section 3.3).
FIT_LOW = 0.6
FIT_HIGH = 1.6

#: Outfit above which a question is dropped in purification (paper, section 3.5).
PURIFY_OUTFIT = 1.6

#: Responses with |z| at least this large are listed as unexpected.
UNEXPECTED_Z = 3.0

#: Default |z| from which the misfit diagnosis of one system lists a response.
MISFIT_Z = 2.0

#: Two-sided z for "covers the truth" in parameter-recovery checks (95 %).
COVERAGE_Z = 1.959963984540054

# --- Equating simulation ------------------------------------------------------

#: Sizes of the equating sets in the paper's simulation (section 4).
EQUATING_SIZES = (20, 30, 50)

# --- Plots ----------------------------------------------------------------------

#: Mean-squares above this are drawn as an X at the right edge (Figure 2).
PLOT_OUTFIT_CAP = 2.0

#: Horizontal jitter of the X markers, in mean-square units.
PLOT_JITTER = 0.04

#: Marker area for a standard error of 1 logit, in points squared.
PLOT_SE_AREA = 60.0

#: Points on the logit grid for density and SE curves (Figure 4).
PLOT_GRID_POINTS = 201

# --- Simulation of paper-shaped data -----------------------------------------------

#: System abilities in the paper: mean -1.98 logits, SD about 1.1.
PAPER_SYSTEM_MEAN = -1.98
PAPER_SYSTEM_SD = 1.1

#: Question difficulties: a mixture with its mode near -1 logit and mean 0.
PAPER_QUESTION_MIX = ((0.6, -1.0, 0.8), (0.4, 1.5, 1.0))  # (weight, mean, sd)
