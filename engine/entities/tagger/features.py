"""Token features of the statistical tagger: the word and its neighbours, spelling,
gazetteer classes and the rule tagger's own answer."""

from __future__ import annotations

from collections.abc import Sequence

from engine.entities.tagger.gazetteer import MAX_PHRASE_WORDS, Gazetteers
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
