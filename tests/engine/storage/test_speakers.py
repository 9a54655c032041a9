"""Speakers and turns in the index: the migration from 0007, save, rename, merge, replace."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from engine.errors import NotFoundError, StorageError
from engine.storage.schema import MIGRATIONS
from engine.storage.store import SPEAKER_NAME_MAX, NewRecording, SpeakerRow, SpeakerTurns, Store, TurnRow, WordRow


def two_voices(path: str = "/r/talk.wav") -> NewRecording:
    """Six words: S1 says the first three, S2 the last two, the fourth is in applause (no speaker)."""
    said = ["good", "evening", "everyone", "clap", "thank", "you"]
    words = [WordRow(i * 1.0, i * 1.0 + 0.8, 0.9, t) for i, t in enumerate(said)]
    found = SpeakerTurns(
        speakers=[SpeakerRow(1, 3.0, b"\0" * 768), SpeakerRow(2, 2.0)],
        turns=[TurnRow(1, 0.0, 3.0), TurnRow(2, 4.0, 6.0)],
        word_speakers=[1, 1, 1, None, 2, 2],
    )
    return NewRecording(path, Path(path).name, "h1", 100, 6.0, 16000, 1, "pcm_s16le", "wav", "whisper", "m", "en",
                        words, [(0, 2), (3, 5)], speakers=found)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "lib.sqlite")


def test_speakers_turns_and_word_speakers_are_saved_with_the_transcript(store: Store) -> None:
    rid = store.save_recording(two_voices())
    assert [(s["label"], s["name"], s["seconds"], s["turns"], s["words"]) for s in store.speakers(rid)] == [
        (1, "Speaker 1", 3.0, 1, 3), (2, "Speaker 2", 2.0, 1, 2)]
    assert [(t["speaker"], t["name"], t["start"], t["end"]) for t in store.turns(rid)] == [
        (1, "Speaker 1", 0.0, 3.0), (2, "Speaker 2", 4.0, 6.0)]
    assert [w["speaker"] for w in store.words(rid)] == [1, 1, 1, None, 2, 2]
    assert store.speaker_centroids(rid) == {1: b"\0" * 768}
    assert store.recording(rid)["speakers_given"] is None


@pytest.mark.parametrize(("turns", "per_word"), [
    pytest.param([TurnRow(3, 0.0, 1.0)], None, id="turn-of-unknown-speaker"),
    pytest.param([], [1, 1], id="word-speakers-too-few"),
    pytest.param([], [1, 1, 1, 1, 1, 7], id="word-of-unknown-speaker"),
])
def test_inconsistent_speaker_rows_write_nothing(store: Store, turns: list[TurnRow], per_word: list[int] | None) -> None:
    base = two_voices()
    bad = SpeakerTurns(speakers=base.speakers.speakers, turns=turns, word_speakers=per_word)
    with pytest.raises(StorageError, match="speaker"):
        store.save_recording(NewRecording(**{**base.__dict__, "speakers": bad}))
    assert store.counts()["recordings"] == store.counts()["speakers"] == store.counts()["turns"] == 0


def test_a_rename_persists_and_labels_are_found_by_any_name(tmp_path: Path) -> None:
    with Store(tmp_path / "lib.sqlite") as store:
        rid = store.save_recording(two_voices())
        store.rename_speaker(rid, store.speaker_label(rid, "S2"), "  Ann   Lee ")
    with Store(tmp_path / "lib.sqlite") as store:
        assert [s["name"] for s in store.speakers(rid)] == ["Speaker 1", "Ann Lee"]
        assert store.turns(rid)[1]["name"] == "Ann Lee"
        assert store.speaker_label(rid, "ann lee") == store.speaker_label(rid, "2") == store.speaker_label(rid, "s2") == 2
        assert store.speaker_label(rid, "Speaker 1") == 1


def test_an_unknown_label_names_the_speakers_there_are(store: Store) -> None:
    rid = store.save_recording(two_voices())
    known = r"S1 \(Speaker 1\), S2 \(Speaker 2\)"
    with pytest.raises(NotFoundError, match=rf"^S9: no such speaker in recording 1 \(speakers: {known}\)$"):
        store.speaker_label(rid, "S9")
    with pytest.raises(StorageError, match="a speaker's name cannot be empty"):
        store.rename_speaker(rid, 1, "   ")


def test_a_merge_moves_turns_words_and_talk_time(store: Store) -> None:
    rid = store.save_recording(two_voices())
    store.merge_speakers(rid, 1, 2)
    assert [(s["label"], s["seconds"], s["turns"], s["words"]) for s in store.speakers(rid)] == [(1, 5.0, 2, 5)]
    assert {t["speaker"] for t in store.turns(rid)} == {1}
    with pytest.raises(StorageError, match="cannot merge a speaker with itself"):
        store.merge_speakers(rid, 1, 1)


def test_a_merged_voice_profile_is_the_talk_time_weighted_mean_of_both(store: Store) -> None:
    rng = np.random.default_rng(7)
    a, b = (v / np.linalg.norm(v) for v in rng.standard_normal((2, 192)).astype(np.float32))
    rid = store.save_recording(dataclasses.replace(two_voices(), speakers=SpeakerTurns(
        speakers=[SpeakerRow(1, 3.0, a.tobytes()), SpeakerRow(2, 1.0, b.tobytes())],
        turns=[TurnRow(1, 0.0, 3.0), TurnRow(2, 4.0, 6.0)], word_speakers=[1, 1, 1, None, 2, 2])))
    store.merge_speakers(rid, 1, 2)
    want = (3.0 * a + 1.0 * b) / np.linalg.norm(3.0 * a + 1.0 * b)
    got = np.frombuffer(store.speaker_centroids(rid)[1], dtype=np.float32)
    assert np.allclose(got, want, atol=1e-6)


def test_replacing_speakers_clears_the_old_ones_and_records_the_given_count(store: Store) -> None:
    rid = store.save_recording(two_voices())
    store.rename_speaker(rid, 1, "Host")
    store.replace_speakers(rid, SpeakerTurns([SpeakerRow(1, 5.0)], [TurnRow(1, 0.0, 6.0)], [1] * 5 + [None], given=1))
    assert [(s["label"], s["name"]) for s in store.speakers(rid)] == [(1, "Speaker 1")]
    assert [w["speaker"] for w in store.words(rid)] == [1] * 5 + [None]
    assert store.recording(rid)["speakers_given"] == 1


def test_removing_a_recording_removes_its_speakers_and_turns(store: Store) -> None:
    rid = store.save_recording(two_voices())
    store.remove_recording(rid)
    assert store.counts()["speakers"] == store.counts()["turns"] == 0


def test_an_index_at_0007_is_migrated_and_its_words_have_no_speaker(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old = Store(path)
    rid = old.save_recording(NewRecording(**{**two_voices().__dict__, "speakers": SpeakerTurns()}))
    # Undo 0008 as a 0007 index has it: no speaker tables, no words.speaker, no recordings.speakers_given.
    for sql in ("DROP TABLE speakers", "DROP TABLE turns", "ALTER TABLE words DROP COLUMN speaker",
                "ALTER TABLE recordings DROP COLUMN speakers_given", "DELETE FROM migrations WHERE name = '0008_speakers'",
                "PRAGMA user_version = 7"):
        old.conn.execute(sql)
    old.close()
    with sqlite3.connect(path) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY name")][-1] == "0007_story_kind"
    new = Store(path)
    assert new.schema_version() == len(MIGRATIONS)
    assert MIGRATIONS[7][0] == "0008_speakers"
    assert [w["speaker"] for w in new.words(rid)] == [None] * 6
    assert new.speakers(rid) == [] and new.turns(rid) == []
    rid2 = new.save_recording(two_voices("/r/b.wav"))
    assert len(new.speakers(rid2)) == 2


def test_a_name_longer_than_the_limit_is_refused(store: Store) -> None:
    rid = store.save_recording(two_voices())
    store.rename_speaker(rid, 1, "x" * SPEAKER_NAME_MAX)
    with pytest.raises(StorageError, match=rf"^a speaker's name is at most {SPEAKER_NAME_MAX} characters \(this one has"
                                           rf" {SPEAKER_NAME_MAX + 1}\)$"):
        store.rename_speaker(rid, 2, "y" * (SPEAKER_NAME_MAX + 1))
    assert [s["name"] for s in store.speakers(rid)] == ["x" * SPEAKER_NAME_MAX, "Speaker 2"]


def test_a_speakers_name_finds_their_turns_words_and_recordings(store: Store) -> None:
    rid = store.save_recording(two_voices())
    other = store.save_recording(dataclasses.replace(two_voices("/r/other.wav"), content_hash="h2"))
    store.rename_speaker(rid, 2, "Ann Lee")
    assert store.speaker_names() == ["Speaker 1", "Ann Lee", "Speaker 2"]  # most talk time first, then by name
    assert store.recordings_with_speaker("ann lee") == [rid]
    assert sorted(store.recordings_with_speaker("Speaker 1")) == [rid, other]
    rows = store.filtered_spans(speaker="ANN LEE")
    assert [(r["recording_id"], r["start"], r["end"], r["kind"], r["label"], r["first_word"], r["last_word"])
            for r in rows] == [(rid, 4.0, 6.0, "speaker", "Ann Lee", 4, 5)]
    assert store.speaker_name_of_words(rid, 3, 5) == "Ann Lee"  # word 3 (applause) has no speaker
    assert store.speaker_name_of_words(rid, 3, 3) == ""
    assert store.speaker_talks_in(rid, "Ann Lee", 5.5, 9.0)
    assert not store.speaker_talks_in(rid, "Ann Lee", 0.0, 4.0)  # touching the turn's start is not talking in it
