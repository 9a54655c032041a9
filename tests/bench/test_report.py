"""The docs tables are what ``python -m bench.report`` generates from bench/results/, never edited by hand."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench import report


def test_every_docs_table_is_what_the_results_generate(capsys: pytest.CaptureFixture[str]) -> None:
    assert report.main(["--check"]) == 0, capsys.readouterr().err


def test_a_figure_edited_by_hand_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(report.DOCS / "build.md", tmp_path / "build.md")
    page = tmp_path / "build.md"
    text = page.read_text(encoding="utf-8")
    assert "| whole self-test (--self-test) | 31.20 s |" in text
    page.write_text(text.replace("| whole self-test (--self-test) | 31.20 s |", "| whole self-test (--self-test) | 3.20 s |"),
                    encoding="utf-8")
    assert report.main(["--check", "--docs", str(tmp_path)]) == 1
    assert "build.md: build" in capsys.readouterr().err
    assert report.main(["--docs", str(tmp_path)]) == 0  # rewriting puts the measured figure back
    assert page.read_text(encoding="utf-8") == text


def test_an_unknown_table_name_stops_the_run(tmp_path: Path) -> None:
    (tmp_path / "page.md").write_text("<!-- bench:no-such-table -->\n<!-- /bench:no-such-table -->\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="no table named 'no-such-table'"):
        report.main(["--check", "--docs", str(tmp_path)])


def test_nth_table_picks_the_table_by_position() -> None:
    markdown = "# x\n\n| a |\n|---|\n| 1 |\n\ntext\n\n| b |\n|---|\n| 2 |\n"
    assert report.nth_table(markdown, 1) == "| b |\n|---|\n| 2 |"
    with pytest.raises(ValueError, match="holds 2 tables, not 3"):
        report.nth_table(markdown, 2)


def test_a_result_without_its_own_stamp_takes_date_and_commit_from_git() -> None:
    line = report.provenance("asr-memory-60min", {"cpus": 2, "memory": []})
    assert "(the file's last change in git)" in line
    assert line.endswith("machine: not recorded (2 cores)")
    stamped = {"recorded": {"date": "2026-12-01 10:00", "commit": "abcdef1234", "machine": "x86_64, 2 cores"}}
    assert report.provenance("asr", stamped) == ("`bench/results/asr.json`: 2026-12-01 10:00, commit abcdef1234, "
                                                 "machine: x86_64, 2 cores")
