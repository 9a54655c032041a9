"""Dates, times, money and percentages in spoken-style words (MUC TIMEX and NUMEX)."""

from __future__ import annotations

from collections.abc import Sequence

NUMBER_WORDS = frozenset((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty",
    "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand", "million", "billion",
    "trillion", "half", "quarter", "dozen"
))
_GLUE = frozenset(("a", "and", "point", "an"))
MONTHS = frozenset((
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december"
))
_AMBIGUOUS_MONTHS = frozenset(("may", "march"))
WEEKDAYS = frozenset((
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"
))
ORDINALS = frozenset((
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
    "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
    "twentieth", "thirtieth"
))
CURRENCIES = frozenset((
    "dollars", "dollar", "cents", "cent", "pounds", "pound", "euros", "euro", "yen", "francs", "marks", "pesos",
    "rupees", "yuan"
))
_DAY_WORDS = frozenset(("yesterday", "today", "tomorrow", "tonight"))
_CLOCK = frozenset(("am", "pm", "oclock"))


def _is_number(f: str) -> bool:
    return f in NUMBER_WORDS or f.isdigit() or (f[:-2].isdigit() and f[-2:] in ("st", "nd", "rd", "th"))


def _number_run_before(forms: Sequence[str], i: int) -> int:
    """First index of the run of number words that ends just before ``i`` (``i`` if none)."""
    lo = i
    while lo > 0 and (_is_number(forms[lo - 1]) or (forms[lo - 1] in _GLUE and lo - 1 > 0 and _is_number(forms[lo - 2]))):
        lo -= 1
    while lo < i and forms[lo] in _GLUE:
        lo += 1
    return lo


def numeric_spans(forms: Sequence[str]) -> list[tuple[int, int, str]]:
    """(first, last, type) of DATE, TIME, MONEY and PERCENT expressions; ``forms`` are folded words."""
    out: list[tuple[int, int, str]] = []
    n = len(forms)
    i = 0
    while i < n:
        f = forms[i]
        if f == "percent" or (f == "cent" and i > 0 and forms[i - 1] == "per"):
            lo = _number_run_before(forms, i - (1 if f == "cent" else 0))
            if lo < i:
                out.append((lo, i, "PERCENT"))
        elif f in CURRENCIES:
            lo = _number_run_before(forms, i)
            if lo < i:
                out.append((lo, i, "MONEY"))
        elif f in _CLOCK or (f == "m" and i > 0 and forms[i - 1] in ("a", "p")):
            end = i
            k = i - 1 if f == "m" else i
            lo = _number_run_before(forms, k)
            if lo < k:
                out.append((lo, end, "TIME"))
        elif f in MONTHS:
            hi = i
            if hi + 1 < n and (_is_number(forms[hi + 1]) or forms[hi + 1] in ORDINALS):
                hi += 1
                while hi + 1 < n and _is_number(forms[hi + 1]) and hi - i < 4:
                    hi += 1
            lo = i
            if i >= 2 and forms[i - 1] == "of" and forms[i - 2] in ORDINALS:
                lo = i - 2
            if hi > i or lo < i or f not in _AMBIGUOUS_MONTHS:
                out.append((lo, hi, "DATE"))
                i = hi
        elif f in WEEKDAYS or f in _DAY_WORDS:
            out.append((i, i, "DATE"))
        i += 1
    return out
