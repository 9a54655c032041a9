"""Token features of the statistical tagger: the word and its neighbours, spelling,
gazetteer classes and the rule tagger's own answer."""

from __future__ import annotations

from collections.abc import Sequence

from engine.entities.tagger.gazetteer import MAX_PHRASE_WORDS, Gazetteers, fold_token
from engine.entities.tagger.rules import ORG_OF_HEADS, ORG_SUFFIXES, TITLES, RuleTagger


def _word_class(f: str, g: Gazetteers) -> list[str]:
    out = [f"z{int(g.common(f))}"]
    if f in g.first_names:
        out.append("fn" if g.first_names[f] >= 0.05 else "fn-rare")
    if f in g.surnames:
        out.append("sn" if g.surnames[f] >= 0.01 else "sn-rare")
    place = g.places.get(f)
    if place is not None:
        out.append("pl-" + place.kind + ("-big" if place.population >= 100_000 else ""))
    if f in g.companies:
        out.append("co")
    if f in g.curated:
        out.append("cu-" + g.curated[f])
    if f in TITLES:
        out.append("title")
    if f in ORG_SUFFIXES:
        out.append("orgsuf")
    if f in ORG_OF_HEADS:
        out.append("orghead")
    return out


def _shape(f: str) -> str:
    if f.isdigit():
        return "digits"
    if any(ch.isdigit() for ch in f):
        return "hasdigit"
    n = len(f)
    return "len" + ("1" if n == 1 else "2" if n == 2 else "3" if n == 3 else "4-5" if n <= 5 else "6-8" if n <= 8 else "9+")


def _phrase_tags(forms: Sequence[str], g: Gazetteers) -> list[str]:
    """BIO label of the longest multi-word gazetteer phrase over each word ('' outside)."""
    out = [""] * len(forms)
    i = 0
    while i < len(forms):
        for n in range(min(MAX_PHRASE_WORDS, len(forms) - i), 1, -1):
            phrase = " ".join(forms[i:i + n])
            kind = (g.curated.get(phrase) or ("pl-" + g.places[phrase].kind if phrase in g.places else None)
                    or ("co" if phrase in g.companies else None))
            if kind:
                out[i] = "B-" + kind
                for k in range(i + 1, i + n):
                    out[k] = "I-" + kind
                i += n - 1
                break
        i += 1
    return out


def sequence_features(forms: Sequence[str], g: Gazetteers, rules: RuleTagger) -> list[list[str]]:
    """Feature strings of every word of one text (folded words, no sentence breaks)."""
    n = len(forms)
    classes = [_word_class(f, g) for f in forms]
    rule_tags = ["O"] * n
    for span in rules.tag(list(forms)):
        rule_tags[span.first_word] = "B-" + span.type
        for k in range(span.first_word + 1, span.last_word + 1):
            rule_tags[k] = "I-" + span.type
    phrase = _phrase_tags(forms, g)
    pad = ["<s>", "<s>", *forms, "</s>", "</s>"]
    out = []
    for i, f in enumerate(forms):
        p = i + 2
        feats = ["b", "w=" + f, "w-1=" + pad[p - 1], "w+1=" + pad[p + 1], "w-2=" + pad[p - 2], "w+2=" + pad[p + 2],
                 "w-1w=" + pad[p - 1] + "|" + f, "ww+1=" + f + "|" + pad[p + 1],
                 "s3=" + f[-3:], "s4=" + f[-4:], "p3=" + f[:3], "sh=" + _shape(f),
                 "r=" + rule_tags[i], "r-1=" + (rule_tags[i - 1] if i else "<s>"),
                 "r+1=" + (rule_tags[i + 1] if i + 1 < n else "</s>")]
        feats += ["c=" + c for c in classes[i]]
        if i:
            feats += ["c-1=" + c for c in classes[i - 1]]
        if i + 1 < n:
            feats += ["c+1=" + c for c in classes[i + 1]]
        if i > 1 and forms[i - 2] in TITLES:
            feats.append("title-2")
        if phrase[i]:
            feats.append("ph=" + phrase[i])
        out.append(feats)
    return out


# -- words as shown: case, punctuation, sentence ends ---------------------------------------------
_OPENING = "([{\"'“‘¿¡"
_SENTENCE_END = ".?!"


def split_shown(word: str) -> tuple[str, str, str]:
    """(leading punctuation, core, trailing punctuation) of a shown word: ``'"Paris,'`` ->
    ``('"', 'Paris', ',')``. A word without a letter or digit is all core."""
    lo, hi = 0, len(word)
    while lo < hi and not word[lo].isalnum():
        lo += 1
    while hi > lo and not word[hi - 1].isalnum():
        hi -= 1
    if lo == hi:
        return "", word, ""
    return word[:lo], word[lo:hi], word[hi:]


def word_shape(core: str) -> str:
    """Capitals as X, small letters x, digits d, runs of one class shortened to two:
    ``"McDonald's"`` -> ``"XxXxx'x"``, ``"U.S."`` -> ``"X.X"``."""
    out: list[str] = []
    for ch in core:
        c = "X" if ch.isupper() else "x" if ch.islower() else "d" if ch.isdigit() else ch
        if len(out) >= 2 and out[-1] == c and out[-2] == c:
            continue
        out.append(c)
    return "".join(out)


def case_class(core: str) -> str:
    """One of ``upper`` (two or more capitals, no small letter), ``title``, ``lower``, ``mixed``, ``none``."""
    letters = [ch for ch in core if ch.isalpha()]
    if not letters:
        return "none"
    if all(ch.isupper() for ch in letters):
        return "upper" if len(letters) > 1 else "title"
    if all(ch.islower() for ch in letters):
        return "lower"
    return "title" if letters[0].isupper() and all(ch.islower() for ch in letters[1:]) else "mixed"


def sentence_starts(shown: Sequence[str]) -> list[bool]:
    """A word starts a sentence when it is the first or the word before ends with . ? or !
    (an abbreviation such as ``U.S.`` or ``Mr.`` does not end one)."""
    out = [True] * len(shown)
    for i in range(1, len(shown)):
        _, core, trail = split_shown(shown[i - 1])
        ends = any(ch in _SENTENCE_END for ch in trail) or (core and all(ch in _SENTENCE_END for ch in core))
        abbrev = trail == "." and (len(core) == 1 or "." in core or core.lower() in TITLES)
        out[i] = bool(ends) and not abbrev
    return out


def shown_features(shown: Sequence[str]) -> list[list[str]]:
    """Feature strings from the words as a recogniser shows them (case, punctuation, sentence
    starts), added to :func:`sequence_features` of their folded forms by the cased tagger."""
    n = len(shown)
    parts = [split_shown(w) for w in shown]
    cores = [p[1] for p in parts]
    cases = [case_class(c) for c in cores]
    shapes = [word_shape(c) for c in cores]
    starts = sentence_starts(shown)
    # A sentence-initial capital says little; the same word capitalised inside a sentence says more.
    mid_capital = {c.lower() for c, k, s in zip(cores, cases, starts, strict=True) if k in ("title", "mixed") and not s}
    lower_seen = {c for c, k in zip(cores, cases, strict=True) if k == "lower"}
    caps_run = [sum(cases[k] == "upper" for k in range(max(0, i - 3), min(n, i + 4))) >= 4 for i in range(n)]
    pad_case = ["<s>", *cases, "</s>"]
    pad_shape = ["<s>", *shapes, "</s>"]
    pad_core = ["<s>", *cores, "</s>"]
    out = []
    for i, (lead, core, trail) in enumerate(parts):
        p = i + 1
        k = cases[i]
        ss = "S" if starts[i] else "m"
        feats = ["W=" + core, "sh=" + shapes[i], "cc=" + k, "cc|ss=" + k + ss,
                 "cc-1=" + pad_case[p - 1], "cc+1=" + pad_case[p + 1],
                 "cc3=" + pad_case[p - 1] + "|" + k + "|" + pad_case[p + 1],
                 "sh-1=" + pad_shape[p - 1], "sh+1=" + pad_shape[p + 1],
                 "W-1=" + pad_core[p - 1], "W+1=" + pad_core[p + 1],
                 "Wp2=" + core[:2], "Ws2=" + core[-2:], "Ws5=" + core[-5:], "Wp4=" + core[:4]]
        if lead:
            feats.append("lead=" + lead[-1:])
        if trail:
            feats.append("trail=" + trail[:1])
        if i and split_shown(shown[i - 1])[2]:
            feats.append("trail-1=" + split_shown(shown[i - 1])[2][:1])
        low = core.lower()
        if low in mid_capital:
            feats.append("doc-midcap|" + ss)
        if low in lower_seen:
            feats.append("doc-lower|" + k)
        if caps_run[i]:
            feats.append("capsrun|" + k)
        out.append(feats)
    return out


def token_features(words: Sequence[str], g: Gazetteers, rules: RuleTagger, *, cased: bool) -> list[list[str]]:
    """Features of one text's words: of their folded forms, and with ``cased`` of the words as shown too."""
    forms = [fold_token(w) for w in words]
    feats = sequence_features(forms, g, rules)
    if cased:
        for f, extra in zip(feats, shown_features(words), strict=True):
            f.extend(extra)
    return feats


def history_features(words: Sequence[str], labels: Sequence[str]) -> list[list[str]]:
    """What a first pass said about the same word elsewhere in the text (BIO ``labels``): one
    ``nl=TYPE`` per entity type another occurrence got, and the most frequent answer
    (``O`` included). A name written once in full and later alone is found by its first mention."""
    keys = [split_shown(w)[1].lower() for w in words]
    seen: dict[str, list[str]] = {}
    for key, lab in zip(keys, labels, strict=True):
        seen.setdefault(key, []).append(lab[2:] if lab != "O" else "O")
    out: list[list[str]] = []
    for key, lab in zip(keys, labels, strict=True):
        others = list(seen[key])
        others.remove(lab[2:] if lab != "O" else "O")
        if not others:
            out.append([])
            continue
        counts: dict[str, int] = {}
        for t in others:
            counts[t] = counts.get(t, 0) + 1
        majority = max(sorted(counts), key=lambda t: counts[t])
        out.append(["nl=" + t for t in counts if t != "O"] + ["nlmaj=" + majority])
    return out
