"""Terms as passage search sees them: tokens, stop words, the query.

A token is a maximal run of letters and digits, lower-cased, with diacritics
removed: the same tokens SQLite FTS5's ``unicode61`` tokenizer makes, so that
the terms written into the full-text index match themselves. Stop words and
one-letter tokens are dropped before counting ("stopped" passages, section 4).
No stemming.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_TOKEN = re.compile(r"[^\W_]+")

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
    """All tokens of ``text``, normalised, stop words included."""
    return [normalise(t) for t in _TOKEN.findall(text)]


def is_term(token: str) -> bool:
    """True for a token that is counted: not a stop word, more than one character."""
    return len(token) > 1 and token not in STOP_WORDS


def terms(text: str) -> list[str]:
    """The counted terms of ``text`` in order (tokens less stop words)."""
    return [t for t in tokens(text) if is_term(t)]


def word_terms(words: Sequence[str]) -> tuple[list[str], list[int]]:
    """Terms of a word sequence and, for each term, the index of the word it came from.

    A recognised word may hold several tokens ("don't", "9/11"); each counted
    one becomes a term at that word's index.
    """
    out: list[str] = []
    where: list[int] = []
    for i, word in enumerate(words):
        for tok in _TOKEN.findall(word):
            term = normalise(tok)
            if is_term(term):
                out.append(term)
                where.append(i)
    return out, where


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

