"""Write DER reference figures from pyannote.metrics, an independent implementation, for the tests.

Random reference and hypothesis turns (fixed seed; overlapping speech, label
swaps, gaps, turns past the reference's end) are scored by pyannote.metrics'
``DiarizationErrorRate(collar=2 * c, skip_overlap=False)``, which removes
``c`` seconds each side of a reference boundary as md-eval's ``-c c`` does.
The cases and figures go to ``tests/engine/evaluate/der_pyannote.json``;
``tests/engine/evaluate/test_der.py`` checks ``engine.evaluate.der`` against them.
pyannote.metrics is not a dependency of Earshot: run this in a scratch venv::

    python3 -m venv /tmp/dv && /tmp/dv/bin/pip install pyannote.metrics==4.2.0
    /tmp/dv/bin/python tools/der_reference.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "engine" / "evaluate" / "der_pyannote.json"
N_CASES = 60


def _turns(rng: random.Random, labels: list[str], length: float) -> list[list[float | str]]:
    """Turns up to ``length`` s; a speaker's own turns never overlap (RTTM scorers differ there)."""
    turns: list[list[float | str]] = []
    last_end = dict.fromkeys(labels, 0.0)
    t = 0.0
    while t < length:
        start = round(t + rng.choice([0.0, 0.0, rng.uniform(0, 2)]), 3)
        free = [label for label in labels if last_end[label] <= start]
        if not free:
            t = max(last_end.values())
            continue
        label = rng.choice(free)
        end = round(start + rng.uniform(0.2, 6), 3)
        turns.append([start, end, label])
        last_end[label] = end
        t = max(0.0, end - (rng.uniform(0, 1.5) if rng.random() < 0.3 else 0.0))  # overlapping speech
    return turns


def make_cases(seed: int = 20261128) -> list[dict[str, object]]:
    """Random (reference, hypothesis, collar) cases."""
    rng = random.Random(seed)
    cases: list[dict[str, object]] = []
    for index in range(N_CASES):
        length = rng.uniform(10, 120)
        ref = _turns(rng, [f"R{k}" for k in range(rng.randint(1, 5))], length)
        hyp = _turns(rng, [f"h{k}" for k in range(rng.randint(1, 6))], length * rng.uniform(0.8, 1.2))
        cases.append({"ref": ref, "hyp": hyp, "collar": [0.0, 0.25, 0.5][index % 3]})
    cases.append({"ref": [[0.0, 10.0, "A"]], "hyp": [], "collar": 0.25})
    cases.append({"ref": [], "hyp": [[1.0, 2.0, "x"]], "collar": 0.25})
    return cases


def main() -> None:
    from pyannote.core import Annotation, Segment
    from pyannote.metrics import __version__
    from pyannote.metrics.diarization import DiarizationErrorRate

    cases = make_cases()
    for case in cases:
        annotations = []
        for key in ("ref", "hyp"):
            annotation = Annotation()
            for track, (start, end, label) in enumerate(case[key]):  # type: ignore[attr-defined]
                annotation[Segment(start, end), track] = label
            annotations.append(annotation)
        metric = DiarizationErrorRate(collar=2 * float(case["collar"]), skip_overlap=False)  # type: ignore[arg-type]
        detail = metric(annotations[0], annotations[1], detailed=True)
        case["pyannote"] = {k: float(detail[k]) for k in ("missed detection", "false alarm", "confusion", "total")}
    OUT.write_text(json.dumps({"pyannote.metrics": __version__, "cases": cases}, indent=0) + "\n")
    print(f"{len(cases)} cases -> {OUT}")


if __name__ == "__main__":
    main()
