"""Evaluation of Earshot's outputs against ground truth.

One subpackage or module per output: :mod:`.passages` (passage retrieval, TREC-style runs
and judgements) with :mod:`.collection` (the test collection built from the shared data),
:mod:`.segmentation` (story boundaries: Pk, WindowDiff, TDT cost), :mod:`.entities` (named
entities on speech, after Burger, Palmer & Hirschman), :mod:`.word_errors` (word error
rate) and :mod:`.rasch` (Rasch measurement of systems and questions). Runtime packages
never import it (the layers contract in ``pyproject.toml``).
"""
