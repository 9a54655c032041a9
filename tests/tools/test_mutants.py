"""tools/mutants.py: a mutant changes one line of a copy, and a line that is not there is reported."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools.mutants import MUTANTS, Mutant, MutantError, apply_mutant, copy_tree

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "rules.py").write_text("def f(x):\n    y = x + 1\n    return y\n\n\ndef g(x):\n    y = x + 1\n")
    return tmp_path


def test_a_mutant_changes_only_its_line_and_keeps_the_indentation(tree: Path) -> None:
    before = apply_mutant(tree, Mutant("plus", "pkg/rules.py", "return y", "return -y", ("tests",)))
    after = (tree / "pkg" / "rules.py").read_text()
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    assert changed == [("    return y", "    return -y")]


def test_the_nth_of_identical_lines(tree: Path) -> None:
    apply_mutant(tree, Mutant("second", "pkg/rules.py", "y = x + 1", "y = x - 1", ("tests",), nth=2))
    assert (tree / "pkg" / "rules.py").read_text().splitlines()[1::5] == ["    y = x + 1", "    y = x - 1"]


@pytest.mark.parametrize(("mutant", "message"), [
    (Mutant("gone", "pkg/rules.py", "return z", "return -z", ("tests",)), "the line to break is not there: 'return z'"),
    (Mutant("twice", "pkg/rules.py", "y = x + 1", "y = x", ("tests",)), "stands 2 times; say which with nth"),
    (Mutant("nth", "pkg/rules.py", "y = x + 1", "y = x", ("tests",), nth=3), "nth=3 but the line stands 2 times"),
    (Mutant("file", "pkg/none.py", "y", "z", ("tests",)), "pkg/none.py: no such file"),
], ids=["missing-line", "ambiguous", "nth-too-big", "missing-file"])
def test_a_mutant_that_cannot_be_applied_is_reported_and_changes_nothing(tree: Path, mutant: Mutant, message: str) -> None:
    before = (tree / "pkg" / "rules.py").read_text()
    with pytest.raises(MutantError, match=message):
        apply_mutant(tree, mutant)
    assert (tree / "pkg" / "rules.py").read_text() == before


def test_the_copy_holds_the_tracked_tree_and_the_working_tree_is_untouched(tmp_path: Path) -> None:
    status = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True).stdout
    copy = copy_tree(tmp_path)
    assert (copy / "tools" / "mutants.py").read_text() == (REPO / "tools" / "mutants.py").read_text()
    assert not (copy / ".git").exists()
    apply_mutant(copy, MUTANTS[0])
    assert (copy / MUTANTS[0].path).read_text() != (REPO / MUTANTS[0].path).read_text()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True).stdout == status


def test_every_listed_mutant_applies_to_this_tree(tmp_path: Path) -> None:
    """Each mutant's line is in the product as it is now: edit the line, edit its mutant."""
    assert len(MUTANTS) >= 15 and len({m.name for m in MUTANTS}) == len(MUTANTS)
    for mutant in MUTANTS:
        target = tmp_path / mutant.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((REPO / mutant.path).read_text())
        apply_mutant(tmp_path, mutant)
        assert all((REPO / t.split("::")[0]).exists() for t in mutant.tests), mutant.name
