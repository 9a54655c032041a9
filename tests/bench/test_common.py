"""What the benchmarks share: the key of cached ingest output follows the code and models that made it."""

from __future__ import annotations

from pathlib import Path

from bench.common import ingest_fingerprint


def test_the_transcript_cache_key_changes_with_the_engine_code_and_the_models(tmp_path: Path) -> None:
    for name in ("engine/detect/a.py", "models/detectors/sounds.npz", "models/segmentation/m.npz", "README.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"one")
    first = ingest_fingerprint(tmp_path)
    assert ingest_fingerprint(tmp_path) == first
    (tmp_path / "README.md").write_bytes(b"two")  # not read by ingest
    assert ingest_fingerprint(tmp_path) == first
    keys = {first}
    for name in ("engine/detect/a.py", "models/detectors/sounds.npz", "models/segmentation/m.npz"):
        (tmp_path / name).write_bytes(b"two")
        keys.add(ingest_fingerprint(tmp_path))
    assert len(keys) == 4


def test_a_written_result_records_its_date_commit_and_machine(tmp_path, monkeypatch) -> None:
    import json

    from bench import common

    monkeypatch.setattr(common, "RESULTS", tmp_path)
    common.write_result("x", {"figure": 1}, "| a |\n|---|\n| 1 |")
    written = json.loads((tmp_path / "x.json").read_text())
    assert written["figure"] == 1
    assert set(written["recorded"]) == {"date", "commit", "machine"}
    assert written["recorded"]["commit"] != "unknown"  # the tests run in a git checkout
    assert written["recorded"]["machine"] == common.machine()
