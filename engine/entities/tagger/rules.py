"""The shipped tagger: gazetteers and context rules for lower-case, unpunctuated words.

Recognizer output has no capitals to say where a name is, so every decision rests on
what the words are and what stands beside them. Rules run in order of reliability, each
only on words no earlier rule took:

1. a title (``senator``, ``mr``, ``president`` ...) followed by name-like words -> PERSON;
2. an organisation head word (``bank``, ``party``, ``inc``, ``university of`` ...) with
   name-like words before it, or a place after ``of`` -> ORGANIZATION;
3. gazetteer phrases of two or more words (places, companies, curated names);
4. a first name followed by a surname or an uncommon word -> PERSON;
5. one-word gazetteer entries that are not common English words (or are big enough places);
6. a lone surname already seen in a full name in the same text -> PERSON;
7. dates, times, money and percentages (:mod:`engine.entities.tagger.numeric`).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.entities import config
from engine.entities.spans import EntitySpan
from engine.entities.tagger.gazetteer import MAX_PHRASE_WORDS, Gazetteers, fold_token, load_gazetteers
from engine.entities.tagger.numeric import numeric_spans
from engine.writing import join_written

TITLES = frozenset((
    "mr", "mrs", "ms", "miss", "dr", "doctor", "president", "senator", "sen", "rep", "representative",
    "congressman", "congresswoman", "gov", "governor", "secretary", "minister", "premier", "chancellor",
    "general", "gen", "admiral", "colonel", "col", "major", "lieutenant", "lt", "captain", "capt", "sergeant",
    "sgt", "officer", "detective", "judge", "justice", "attorney", "pope", "cardinal", "bishop", "reverend",
    "rev", "father", "sister", "king", "queen", "prince", "princess", "sheikh", "ayatollah", "mayor", "sheriff",
    "chief", "coach", "commissioner", "ambassador", "spokesman", "spokeswoman", "chairman", "chairwoman", "ceo",
    "vice", "correspondent", "reporter", "anchor", "professor", "prof", "dictator", "leader"
))
ORG_SUFFIXES = frozenset((
    "inc", "corp", "corporation", "company", "co", "ltd", "plc", "group", "bank", "airlines", "airways", "motors",
    "industries", "systems", "technologies", "university", "college", "institute", "party", "council",
    "committee", "commission", "agency", "association", "federation", "foundation", "union", "club", "fc",
    "united", "rovers", "wanderers", "athletic", "albion", "network", "networks", "times", "post", "journal",
    "tribune", "herald", "press", "channel", "corps", "ministry", "department", "authority", "organization",
    "organisation", "alliance", "front", "army", "brigade", "league"
))
ORG_OF_HEADS = frozenset((
    "university", "bank", "department", "ministry", "museum", "institute", "board", "bureau", "college", "school",
    "church", "academy", "council", "federation", "association", "union", "league", "court", "office",
    "commission", "chamber", "house"
))
_NOT_NAMES = frozenset((
    "the", "a", "an", "of", "and", "or", "in", "on", "at", "to", "for", "from", "by", "with", "as", "is", "was",
    "be", "said", "says", "say", "told", "has", "have", "had", "will", "would", "who", "which", "that", "this",
    "these", "those", "it", "its", "he", "she", "they", "we", "you", "i", "his", "her", "their", "our", "your"
))
_PERSON_EXTRA = frozenset(("jr", "junior", "sr", "senior", "ii", "iii"))


class RuleTagger:
    """Gazetteer and rule tagger; ``tag(words)`` gives entity spans over the input indices."""

    name = "rules"

    def __init__(self, gazetteers: Gazetteers | None = None) -> None:
        self.gaz = gazetteers or load_gazetteers()

    def tag(self, words: Sequence[str]) -> list[EntitySpan]:
        forms = [fold_token(w) for w in words]
        taken = [False] * len(forms)
        spans: list[EntitySpan] = []

        def claim(lo: int, hi: int, etype: str, score: float) -> None:
            for k in range(lo, hi + 1):
                taken[k] = True
            spans.append(EntitySpan(etype, lo, hi, join_written(words[lo:hi + 1]), score))

        for rule in (self._titles, self._organisations, self._phrases, self._full_names, self._single_words):
            for lo, hi, etype, score in rule(forms, taken):
                if not any(taken[lo:hi + 1]):
                    claim(lo, hi, etype, score)
        surnames = {forms[s.last_word] for s in spans if s.type == "PERSON" and s.n_words > 1}
        for i, f in enumerate(forms):
            if not taken[i] and f in surnames and self.gaz.common(f) < config.VERY_COMMON_ZIPF:
                claim(i, i, "PERSON", 0.6)
        for lo, hi, etype in numeric_spans(forms):
            if not any(taken[lo:hi + 1]):
                claim(lo, hi, etype, 0.7)
        spans.sort(key=lambda s: s.first_word)
        return spans

    # -- word classes ---------------------------------------------------------------------------
    def _name_like(self, f: str) -> bool:
        if not f or not f.isalpha() or f in _NOT_NAMES or f in TITLES:
            return False
        g = self.gaz
        return f in g.surnames or f in g.first_names or (g.common(f) < 3.3 and len(f) > 2)

    def _org_word(self, f: str) -> bool:
        if not f or f in _NOT_NAMES or f in ORG_SUFFIXES:
            return False
        g = self.gaz
        return g.common(f) < config.COMMON_ZIPF or f in g.places or f in g.companies or f in g.curated

    # -- rules ---------------------------------------------------------------------------------
    def _titles(self, forms: list[str], taken: list[bool]):
        for i, f in enumerate(forms[:-1]):
            if f not in TITLES:
                continue
            j = i + 1
            while j < len(forms) and j - i <= 3 and self._name_like(forms[j]) and \
                    (forms[j] not in self.gaz.places or forms[j] in self.gaz.surnames):
                j += 1
            if j == i + 1 and i + 1 < len(forms) and self._name_like(forms[i + 1]):
                j = i + 2  # a famous single surname that is also a place (president lincoln)
            if j > i + 1:
                yield i + 1, j - 1, "PERSON", 0.9

    def _organisations(self, forms: list[str], taken: list[bool]):
        g = self.gaz
        for i, f in enumerate(forms):
            if f in ORG_OF_HEADS and i + 2 < len(forms) and forms[i + 1] == "of":
                j = i + 2
                while j < len(forms) and j - i < 5 and self._org_word(forms[j]):
                    j += 1
                if j > i + 2:
                    lo = i
                    while lo > 0 and i - lo < 2 and self._org_word(forms[lo - 1]) and forms[lo - 1] not in g.places:
                        lo -= 1
                    yield lo, j - 1, "ORGANIZATION", 0.8
            if f in ORG_SUFFIXES and i > 0:
                lo = i
                while lo > 0 and i - lo < 3 and self._org_word(forms[lo - 1]):
                    lo -= 1
                if lo < i:
                    yield lo, i, "ORGANIZATION", 0.8

    def _phrases(self, forms: list[str], taken: list[bool]):
        i = 0
        while i < len(forms):
            found = None
            for n in range(min(MAX_PHRASE_WORDS, len(forms) - i), 1, -1):
                phrase = " ".join(forms[i:i + n])
                etype = self._phrase_type(phrase, forms[i:i + n])
                if etype:
                    found = (i, i + n - 1, etype, 0.8)
                    break
            if found:
                yield found
                i = found[1] + 1
            else:
                i += 1

    def _phrase_type(self, phrase: str, parts: list[str]) -> str | None:
        g = self.gaz
        if phrase in g.curated:
            return g.curated[phrase]
        all_common = all(g.common(p) >= config.COMMON_ZIPF for p in parts)
        place = g.places.get(phrase)
        if place is not None:
            if place.kind in ("continent", "country", "state") or place.population >= config.CITY_MIN_POPULATION:
                return "LOCATION"
            if not all_common and (place.kind == "region" or place.population >= 15_000):
                return "LOCATION"
        if phrase in g.companies and not all_common:
            return "ORGANIZATION"
        return None

    def _full_names(self, forms: list[str], taken: list[bool]):
        g = self.gaz
        n = len(forms)
        for i, f in enumerate(forms[:-1]):
            if f not in g.first_names or f in _NOT_NAMES or taken[i]:
                continue
            first_common = g.common(f) >= config.COMMON_ZIPF
            j = i + 1
            if j + 1 < n and ((len(forms[j]) == 1 and forms[j].isalpha()) or forms[j] in g.first_names) \
                    and self._surname(forms[j + 1], strict=first_common):
                j += 1  # middle initial or middle name
            if not self._surname(forms[j], strict=first_common):
                continue
            if j + 1 < n and forms[j + 1] in _PERSON_EXTRA:
                j += 1
            yield i, j, "PERSON", 0.75

    def _surname(self, f: str, *, strict: bool) -> bool:
        g = self.gaz
        if not f or not f.isalpha() or f in _NOT_NAMES or len(f) < 2:
            return False
        if f in g.surnames:
            return not strict or g.common(f) < config.COMMON_ZIPF
        return not strict and g.common(f) < 3.0 and f not in g.places

    def _single_words(self, forms: list[str], taken: list[bool]):
        g = self.gaz
        for i, f in enumerate(forms):
            if taken[i] or not f:
                continue
            z = g.common(f)
            if f in g.curated and z < config.VERY_COMMON_ZIPF:
                yield i, i, g.curated[f], 0.7
                continue
            place = g.places.get(f)
            if place is not None:
                big = place.kind in ("continent", "country", "state") or place.population >= 1_000_000
                city = place.population >= config.CITY_MIN_POPULATION
                if (big and z < config.VERY_COMMON_ZIPF) or (city and z < config.COMMON_ZIPF) or \
                        (place.population >= 15_000 and z < 3.0):
                    yield i, i, "LOCATION", 0.6
                    continue
            if f in g.companies and z < 3.0:
                yield i, i, "ORGANIZATION", 0.5
