"""The response matrix: systems in rows, questions in columns, right/wrong/missing.

Rasch texts say *persons* and *items*; Earshot says *systems* (recognizers,
taggers, rankers, settings) and *questions* (topics, entities, test items).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from engine.errors import ParameterError

#: Code of a missing response in :attr:`ResponseMatrix.responses`.
MISSING = -1


@dataclass(frozen=True, eq=False)
class ResponseMatrix:
    """Binary responses of systems to questions.

    Attributes
    ----------
    systems : ids of the rows, unique, non-empty strings.
    questions : ids of the columns, unique, non-empty strings.
    responses : int8 array, shape (n_systems, n_questions), C-contiguous:
        1 right, 0 wrong, -1 (:data:`MISSING`) not answered or not judged.
    source : where the matrix came from (a file name), for messages.
    """

    systems: tuple[str, ...]
    questions: tuple[str, ...]
    responses: np.ndarray
    source: str = ""

    def __post_init__(self) -> None:
        r = self.responses
        if not isinstance(r, np.ndarray) or r.dtype != np.int8 or r.ndim != 2:
            raise ParameterError(
                f"responses must be a 2-D int8 array, got {type(r).__name__} "
                f"{getattr(r, 'dtype', '?')} with shape {getattr(r, 'shape', '?')}"
            )
        if r.shape != (len(self.systems), len(self.questions)):
            raise ParameterError(
                f"responses have shape {r.shape} but there are {len(self.systems)} systems "
                f"and {len(self.questions)} questions"
            )
        if not r.flags.c_contiguous:
            object.__setattr__(self, "responses", np.ascontiguousarray(r))
        bad = (r != 0) & (r != 1) & (r != MISSING)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ParameterError(
                f"response of system {self.systems[i]!r} to question {self.questions[j]!r} is {int(r[i, j])}; "
                f"expected 1, 0 or {MISSING} (missing)"
            )
        _check_ids(self.systems, "system")
        _check_ids(self.questions, "question")

    @classmethod
    def from_array(
        cls,
        values: np.ndarray | Sequence[Sequence[float]],
        *,
        systems: Sequence[str] | None = None,
        questions: Sequence[str] | None = None,
        source: str = "",
    ) -> ResponseMatrix:
        """Build from any 0/1 array; NaN (or -1) marks a missing response.

        Ids default to ``S1..Sn`` and ``Q1..Qm``.
        """
        a = np.asarray(values, dtype=float)
        if a.ndim != 2:
            raise ParameterError(f"a response matrix must be 2-D, got shape {a.shape}")
        missing = np.isnan(a) | (a == MISSING)
        ok = missing | (a == 0) | (a == 1)
        if not ok.all():
            i, j = np.argwhere(~ok)[0]
            raise ParameterError(f"value {float(a[i, j])!r} at row {i}, column {j} is not 0, 1 or missing")
        codes = np.where(missing, MISSING, a).astype(np.int8)
        n, m = codes.shape
        sys_ids = tuple(systems) if systems is not None else tuple(f"S{i + 1}" for i in range(n))
        q_ids = tuple(questions) if questions is not None else tuple(f"Q{j + 1}" for j in range(m))
        return cls(sys_ids, q_ids, np.ascontiguousarray(codes), source)

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def n_questions(self) -> int:
        return len(self.questions)

    @property
    def observed(self) -> np.ndarray:
        """bool (n_systems, n_questions): True where a response exists."""
        return self.responses != MISSING

    def system_scores(self) -> tuple[np.ndarray, np.ndarray]:
        """(number right, number answered) per system, int64 arrays of shape (n_systems,)."""
        return (self.responses == 1).sum(axis=1), self.observed.sum(axis=1)

    def question_scores(self) -> tuple[np.ndarray, np.ndarray]:
        """(number right, number answered) per question, int64 arrays of shape (n_questions,)."""
        return (self.responses == 1).sum(axis=0), self.observed.sum(axis=0)

    def system_index(self, system: str) -> int:
        try:
            return self.systems.index(system)
        except ValueError:
            raise ParameterError(f"no system {system!r} in {self.source or 'the matrix'}") from None

    def subset(self, *, systems: Iterable[str] | None = None, questions: Iterable[str] | None = None) -> ResponseMatrix:
        """The same responses restricted to some systems and/or questions, in the order given."""
        rows = np.arange(self.n_systems) if systems is None else self._indices(systems, self.systems, "system")
        cols = np.arange(self.n_questions) if questions is None else self._indices(questions, self.questions, "question")
        r = np.ascontiguousarray(self.responses[np.ix_(rows, cols)])
        return ResponseMatrix(
            tuple(self.systems[i] for i in rows), tuple(self.questions[j] for j in cols), r, self.source
        )

    def _indices(self, wanted: Iterable[str], ids: tuple[str, ...], what: str) -> np.ndarray:
        position = {k: i for i, k in enumerate(ids)}
        out = []
        for k in wanted:
            if k not in position:
                raise ParameterError(f"no {what} {k!r} in {self.source or 'the matrix'}")
            out.append(position[k])
        return np.asarray(out, dtype=np.intp)


def _check_ids(ids: tuple[str, ...], what: str) -> None:
    seen: dict[str, int] = {}
    for i, k in enumerate(ids):
        if not isinstance(k, str) or not k:
            raise ParameterError(f"{what} id #{i + 1} is {k!r}; ids must be non-empty strings")
        if k in seen:
            raise ParameterError(f"{what} id {k!r} appears twice (#{seen[k] + 1} and #{i + 1})")
        seen[k] = i
