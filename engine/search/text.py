"""Terms as passage search sees them: tokens, stop words, the query.

A token is a maximal run of letters and digits, lower-cased, with diacritics
removed: the same tokens SQLite FTS5's ``unicode61`` tokenizer makes, so that
the terms written into the full-text index match themselves. Stop words and
one-letter tokens are dropped before counting ("stopped" passages, section 4).
No stemming.

Numbers are searched alike however they were written or said (:func:`number_terms`): a
number word becomes its digits ("one" -> "1", "twenty five" and "twenty-five" -> "25"),
an ordinal word its written ordinal ("first" -> "1st", "twenty first" -> "21st"), and
thousands separators go ("5,000" -> "5000"), in the index and in the query alike. A
number term counts however short ("1"), and a number word is no stop word.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.writing import number_value, ordinal_digits, ordinal_value

_TOKEN = re.compile(r"[^\W_]+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")

_STOP_WORD_TEXT = """
    a about above according across after afterwards again against albeit all almost alone along already also
    although always am among amongst an and another any anybody anyhow anyone anything anyway anywhere apart
    are around as at av be became because become becomes becoming been before beforehand behind being below
    beside besides between beyond both but by can cannot canst certain cf choose contrariwise cos could cu day
    do does doesn doing dost doth double down dual during each either else elsewhere enough et etc even ever
    every everybody everyone everything everywhere except excepted excepting exception exclude excluding
    exclusive far farther farthest few ff first for formerly forth forward from front further furthermore
    furthest get go had halves hardly has hast hath have he hence henceforth her here hereabouts hereafter
    hereby herein hereto hereupon hers herself him himself hindmost his hither hitherto how however howsoever
    i ie if in inasmuch inc include included including indeed indoors inside insomuch instead into inward
    inwards is it its itself just kind kg km last latter latterly less lest let like little ltd many may maybe
    me meantime meanwhile might moreover most mostly more mr mrs ms much must my myself namely need neither
    never nevertheless next no nobody none nonetheless noone nope nor not nothing notwithstanding now nowadays
    nowhere of off often ok on once one only onto or other others otherwise ought our ours ourselves out
    outside over own per perhaps plenty provide quite rather really round said sake same sang save saw see
    seeing seem seemed seeming seems seen seldom selves sent several shalt she should shown sideways since
    slept slew slung slunk smote so some somebody somehow someone something sometime sometimes somewhat
    somewhere spake spat spoke spoken sprang sprung stave staves still such supposing than that the thee
    their them themselves then thence thenceforth there thereabout thereabouts thereafter thereby therefore
    therein thereof thereon thereto thereupon these they this those thou though thrice through throughout thru
    thus thy thyself till to together too toward towards ugh unable under underneath unless unlike until up
    upon upward upwards us use used using very via vs want was we week well were what whatever whatsoever when
    whence whenever whensoever where whereabouts whereafter whereas whereat whereby wherefore wherefrom wherein
    whereinto whereof whereon wheresoever whereto whereunto whereupon wherever wherewith whether whew which
    whichever whichsoever while whilst whither who whoa whoever whole whom whomever whomsoever whose
    whosoever why will wilt with within without worse worst would wow ye yet year yippee you your yours
    yourself yourselves
    don didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn ll ve re
    uh um oh yeah gonna okay
"""
#: English function words (after the InQuery/Lemur list), lower case.
STOP_WORDS = frozenset(_STOP_WORD_TEXT.split())


def normalise(token: str) -> str:
    """Lower case without diacritics (ASCII passes straight through)."""
    token = token.lower()
    if token.isascii():
        return token
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tokens(text: str) -> list[str]:
    """All tokens of ``text``, normalised, numbers as :func:`number_terms` writes them, stop words included."""
    return [t for t, _ in number_terms([normalise(t) for t in _TOKEN.findall(_THOUSANDS.sub("", text))])]


def number_terms(toks: Sequence[str]) -> list[tuple[str, int]]:
    """``toks`` with number and ordinal words as digits, each with the index of its first token.

    ``["press", "one"]`` -> ``[("press", 0), ("1", 1)]``; ``["twenty", "five", "men"]`` ->
    ``[("25", 0), ("men", 2)]``; ``["twenty", "first"]`` -> ``[("21st", 0)]``.
    """
    out: list[tuple[str, int]] = []
    i = 0
    while i < len(toks):
        value, ordinal = number_value(toks[i]), ordinal_value(toks[i])
        if value is not None and value >= 20 and i + 1 < len(toks):  # "twenty" + "five" / "first"
            unit, unit_ordinal = number_value(toks[i + 1]), ordinal_value(toks[i + 1])
            if unit is not None and 1 <= unit <= 9:
                out.append((str(value + unit), i))
                i += 2
                continue
            if unit_ordinal is not None and 1 <= unit_ordinal <= 9:
                out.append((ordinal_digits(value + unit_ordinal), i))
                i += 2
                continue
        if value is not None:
            out.append((str(value), i))
        elif ordinal is not None:
            out.append((ordinal_digits(ordinal), i))
        else:
            out.append((toks[i], i))
        i += 1
    return out


def is_term(token: str) -> bool:
    """True for a token that is counted: a number, or not a stop word and more than one character."""
    return token.isdigit() or (len(token) > 1 and token not in STOP_WORDS)


def terms(text: str) -> list[str]:
    """The counted terms of ``text`` in order (tokens less stop words)."""
    return [t for t in tokens(text) if is_term(t)]


def word_terms(words: Sequence[str]) -> tuple[list[str], list[int]]:
    """Terms of a word sequence and, for each term, the index of the word it came from.

    A recognised word may hold several tokens ("don't", "9/11"); each counted
    one becomes a term at that word's index. A number said in two words ("twenty five")
    is one term at its first word's index.
    """
    toks: list[str] = []
    tok_word: list[int] = []
    for i, word in enumerate(words):
        for tok in _TOKEN.findall(_THOUSANDS.sub("", word)):
            toks.append(normalise(tok))
            tok_word.append(i)
    found = [(term, tok_word[k]) for term, k in number_terms(toks) if is_term(term)]
    return [t for t, _ in found], [w for _, w in found]


def query_terms(query: str) -> Counter[str]:
    """The query's counted terms with how often each occurs in it."""
    return Counter(terms(query))


def fts_match(query_terms: Iterable[str], *, every: bool = False) -> str:
    """An FTS5 MATCH expression asking for any (or, with ``every``, all) of the terms, each quoted."""
    return (" AND " if every else " OR ").join('"' + t.replace('"', '""') + '"' for t in query_terms)


_QUOTED = re.compile(r'"([^"]*)"?')


@dataclass(frozen=True)
class ParsedQuery:
    """A typed query taken apart.

    ``terms``: the counted terms in order (phrase terms included); ``phrases``: each quoted
    phrase's counted terms, only those with two or more; ``ignored``: the tokens dropped (stop
    words, single characters); ``partial``: the last term when it may still be being typed
    (prefix search), else None.
    """

    terms: tuple[str, ...]
    phrases: tuple[tuple[str, ...], ...]
    ignored: tuple[str, ...]
    partial: str | None


def parse_query(query: str, *, prefix: bool = False) -> ParsedQuery:
    """Split ``query`` into terms, quoted phrases and ignored words.

    With ``prefix``, a last term not followed by a space or a closing quote is ``partial``.
    """
    all_terms: list[str] = []
    phrases: list[tuple[str, ...]] = []
    ignored: list[str] = []
    pos = 0
    for m in _QUOTED.finditer(query):
        _collect(query[pos : m.start()], all_terms, ignored)
        inner: list[str] = []
        _collect(m.group(1), inner, ignored)
        if len(inner) > 1:
            phrases.append(tuple(inner))
        all_terms += inner
        pos = m.end()
    _collect(query[pos:], all_terms, ignored)
    partial = None
    if prefix and all_terms and query[-1:].isalnum() and query.count('"') % 2 == 0:
        last = normalise(_TOKEN.findall(query)[-1])
        partial = last if last == all_terms[-1] else None
    return ParsedQuery(tuple(all_terms), tuple(phrases), tuple(dict.fromkeys(ignored)), partial)


def _collect(text: str, out: list[str], ignored: list[str]) -> None:
    for tok in tokens(text):
        (out if is_term(tok) else ignored).append(tok)

