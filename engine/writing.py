"""Words as people write them: sub-word pieces joined, numbers in words and digits alike.

Two rules every layer shares, so that the transcript, search snippets, the entity list
and the exports show the same text, and the index and the query see the same terms.

*Pieces.* Whisper writes some words in pieces ("U" ".S.", "26" "-year" "-old", "$5"
",000"). New transcripts store one word per written word (``engine.asr.whisper_engine``);
words stored before that are joined where they are shown: a stored word that begins with
``.``, ``,``, ``-`` or an apostrophe followed by a letter or digit cannot start a written
word, so it continues the one before (:func:`continues`).

*Sentences.* :func:`ends_sentence` says whether a word as shown ends a sentence (subtitle cues,
where search hits open and where their lead-in stops).

*Numbers.* :func:`number_words` spells a number out (word error scoring uses it);
:func:`number_value` reads one number word ("five" -> 5, "twenty" -> 20) and
:func:`ordinal_value` one ordinal ("fifth" -> 5), for search terms.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_CONTINUATION = re.compile(r"^[.,\-'’][^\W_]")

#: Latin, CJK (full-width and ideographic), Arabic and Devanagari sentence ends.
_SENTENCE_END = (".", "?", "!", "…", "。", "？", "！", "｡", "؟", "।")
# Dotted initials ("U.S.", "W.", and ".S." of a "U .S." a recogniser wrote in pieces) and titles:
# their full stop rarely ends a sentence, and a missed end costs less than a cue cut in a name.
_ABBREVIATION = re.compile(r"^(?:\.?(?:[^\W\d_]\.)+|(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|Gen|Gov|Sen|Rep|Lt|Col|Capt|Sgt|vs)\.)$",
                           re.IGNORECASE)
_CLOSERS = "\"')]»”’"


def ends_sentence(text: str) -> bool:
    """Whether a word as shown ends a sentence: . ? ! or … (closing quotes aside), and no abbreviation
    ("U.S.", "Mr.")."""
    text = text.rstrip(_CLOSERS)
    return text.endswith(_SENTENCE_END) and not _ABBREVIATION.match(text)


ONES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
)
TENS = ("_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SCALES = ((1_000_000_000, "billion"), (1_000_000, "million"), (1000, "thousand"), (100, "hundred"))
_ORDINAL_ONES = (
    "zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth",
    "nineteenth",
)
_VALUES = {word: n for n, word in enumerate(ONES)} | {word: 10 * n for n, word in enumerate(TENS) if n >= 2}
_ORDINALS = {word: n for n, word in enumerate(_ORDINAL_ONES)} | {
    word[:-1] + "ieth": 10 * n for n, word in enumerate(TENS) if n >= 2
}


def continues(display: str) -> bool:
    """True for a stored word that continues the word before it (``".S."``, ``"-year"``, ``",000"``)."""
    return bool(_CONTINUATION.match(display))


def join_written(displays: Sequence[str]) -> str:
    """Words as written, separated by spaces except before a piece that :func:`continues` the last."""
    out: list[str] = []
    for display in displays:
        if out and continues(display):
            out[-1] += display
        else:
            out.append(display)
    return " ".join(out)


def written_groups(displays: Sequence[str]) -> list[range]:
    """Index ranges into ``displays`` of each written word (one range per word unless pieces join)."""
    groups: list[range] = []
    for i, display in enumerate(displays):
        if groups and continues(display):
            groups[-1] = range(groups[-1].start, i + 1)
        else:
            groups.append(range(i, i + 1))
    return groups


def number_words(n: int) -> list[str]:
    """``n`` (0 <= n < 10**12) spelled out: 1925 -> ["one", "thousand", "nine", "hundred", "twenty", "five"]."""
    if n < 20:
        return [ONES[n]]
    if n < 100:
        return [TENS[n // 10]] + ([ONES[n % 10]] if n % 10 else [])
    for size, name in _SCALES:
        if n >= size:
            rest = number_words(n % size) if n % size else []
            return [*number_words(n // size), name, *rest]
    raise AssertionError("unreachable")


def number_value(word: str) -> int | None:
    """The value of one lower-case number word below a hundred ("seven" -> 7, "forty" -> 40), else None."""
    return _VALUES.get(word)


def ordinal_value(word: str) -> int | None:
    """The value of one lower-case ordinal word below a hundred ("third" -> 3, "twentieth" -> 20), else None."""
    return _ORDINALS.get(word)


def ordinal_digits(n: int) -> str:
    """``n`` as a written ordinal: 1 -> "1st", 12 -> "12th", 23 -> "23rd"."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
