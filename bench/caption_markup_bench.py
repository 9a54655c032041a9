"""Caption markup against the true story starts of the NewsScape days: is ``>>`` (speaker change) a cue?

    python bench/caption_markup_bench.py

For each ``.txt3`` day in ``../shared/data/newsscape``: the segments (every ``Story start`` or
``Commercial`` marker opens one), how many of them open on a caption row carrying ``>>>``
(the captioner's story change) or ``>>`` alone (speaker change), and how many such rows the day
has in all. A cue that opens most segments and appears little elsewhere gives the answer away;
one that opens few segments among many rows is weak. The segmenter strips both
(``engine.segment.text.strip_markup``). Also what the day's truth marks: its commercial blocks, the
story starts that close one (a commercial block's far edge), and the other story starts: a day whose
stories all follow commercial blocks marks programme edges, not stories.
Writes ``bench/results/caption_markup.{json,md}``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SHARED, machine, write_result
from engine.segment.text import txt3_rows


def markup_counts(lines: list[str]) -> dict[str, int]:
    """Segments, segments opening on a ``>>>`` / ``>>``-only caption row, and such rows in all, of one day; its
    commercial blocks, story starts right after one, and the other story starts (the first included)."""
    counts = dict.fromkeys(("segments", "opening_story_change", "opening_speaker_change", "story_change_rows",
                            "speaker_change_rows", "commercials", "stories_after_commercial", "other_stories"), 0)  # fmt: skip
    opening = after_commercial = False
    for row in txt3_rows(lines):
        if row.opens_story:
            counts["segments"] += 1
            opening = True
            commercial = "Commercial" in row.text
            counts["commercials" if commercial else "stories_after_commercial" if after_commercial else "other_stories"] += 1
            after_commercial = commercial
            continue
        if not row.is_caption:
            continue
        story = ">>>" in row.text
        speaker = ">>" in row.text and not story
        counts["story_change_rows"] += story
        counts["speaker_change_rows"] += speaker
        if opening:
            counts["opening_story_change"] += story
            counts["opening_speaker_change"] += speaker
            opening = False
    return counts


def markdown(result: dict[str, Any]) -> str:
    """``bench/results/caption_markup.md`` from ``caption_markup.json``: the markup at the true story starts, and
    what each day's truth marks."""
    days = result["days"]
    lines = ["# Caption markup at the true story starts (NewsScape days)", "", f"Machine: {result['machine']}.", "",
             "| day | segments | opening on `>>>` | `>>>` rows | opening on `>>` alone | `>>` rows |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for i, (name, c) in enumerate(days.items(), 1):
        lines.append(f"| {i} ({name[:10]}) | {c['segments']} | {c['opening_story_change']} | {c['story_change_rows']} | "
                     f"{c['opening_speaker_change']} | {c['speaker_change_rows']} |")  # fmt: skip
    lines += ["", "What each day's truth marks:", "",
              "| day | segments | commercial blocks | story starts right after a commercial block "
              "| other story starts (first included) |",
              "| --- | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for i, (name, c) in enumerate(days.items(), 1):
        lines.append(f"| {i} ({name[:10]}) | {c['segments']} | {c['commercials']} | {c['stories_after_commercial']} | "
                     f"{c['other_stories']} |")  # fmt: skip
    return "\n".join(lines)


def main() -> int:
    days = sorted((SHARED / "newsscape").glob("*.txt3"))
    if not days:
        print(f"caption_markup_bench: no .txt3 files in {SHARED / 'newsscape'}", file=sys.stderr)
        return 1
    result = {d.name: markup_counts(d.read_text(encoding="utf-8", errors="replace").splitlines()) for d in days}
    result = {"days": result, "machine": machine()}
    write_result("caption_markup", result, markdown(result), echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
