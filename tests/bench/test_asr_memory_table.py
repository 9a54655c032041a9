"""The ingest memory table: the range and trend after the first hour come from the samples given."""

from __future__ import annotations

from bench.asr_bench import ingest_memory_table


def _row(minutes: float, rss: list[tuple[float, float]]) -> dict:
    return {"engine": "whisper-base", "minutes": minutes, "peak_rss_mb": 900.0, "peak_recognising_mb": 880.0,
            "rtf": 0.2, "rss_by_minute": rss}


def test_trend_after_the_first_hour_is_the_least_squares_slope_per_hour() -> None:
    # 700 MB for the first hour, then rising 30 MB an hour: the first hour's samples do not count
    rss = [(m, 700.0) for m in (10, 20, 30, 40, 50)] + [(m, 800.0 + 30.0 * (m - 60) / 60) for m in range(60, 190, 10)]
    line = ingest_memory_table([_row(180, rss)]).splitlines()[-1]
    assert "| 800-860 MB | +30 MB/h |" in line
    assert "| 700 MB | 860 MB (180 min) |" in line


def test_short_files_have_no_trend() -> None:
    line = ingest_memory_table([_row(10, [(10, 690.0)])]).splitlines()[-1]
    assert line.endswith("| - | - | 0.200 | - (none) |")


def test_the_side_process_peak_is_its_own_column() -> None:
    row = {**_row(10, [(10, 690.0)]), "side_peak_rss_mb": 412.4, "side_used": True}
    assert ingest_memory_table([row]).splitlines()[-1].endswith("| 0.200 | 412 MB |")
    row["side_used"] = False
    assert ingest_memory_table([row]).splitlines()[-1].endswith("| 0.200 | 412 MB (given up) |")
