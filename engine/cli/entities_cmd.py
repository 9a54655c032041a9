"""``earshot entities``: score tagged recognizer output, tag text, train a tagger.

    entities score --ref REF --hyp HYP [--align phonetic|sclite] [--tolerance N] [--muc]
    entities tag FILE [--model NAME] [--json]
    entities train CONLL_DIR --out NAME [--epochs N]

REF is marked-up text, STM or trn (``<ENAMEX TYPE="PERSON">`` or ``<P>`` mark-up);
HYP the same, a CTM (tags on words or none: then the tagger tags it) or a recording
in the index.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path

from engine.cli.common import command_group, non_negative_int, open_store, positive_int
from engine.entities import config
from engine.entities.spans import TYPE_ELEMENT
from engine.entities.tagger import load_tagger, model_path, tag_shown
from engine.errors import NotFoundError
from engine.evaluate.entities.align import MODES, unmatched_units
from engine.evaluate.entities.mapping import MAPPINGS
from engine.evaluate.entities.readers import FORMATS, read_transcript, transcript_from_index, with_entities
from engine.evaluate.entities.report import format_pairs, format_table
from engine.evaluate.entities.score import score
from engine.research.entities.conll import evaluate_spans, find_conll_files, read_conll
from engine.research.entities.train import train_tagger

log = logging.getLogger("earshot.entities")


def register(subparsers) -> None:
    _, sub = command_group(subparsers, "entities", "entities_command",
                           help="named entities: score against a reference, tag, train")

    score = sub.add_parser("score", help="score tagged recognizer output against a marked-up reference")
    score.add_argument("--ref", required=True, metavar="REF", help="reference: marked-up text, .stm or .trn")
    score.add_argument("--hyp", required=True, metavar="HYP",
                       help="hypothesis: marked-up text, .ctm, .trn, or a recording in the index")
    score.add_argument("--align", choices=MODES, default="phonetic", help="lexeme alignment (default phonetic)")
    score.add_argument("--tolerance", type=non_negative_int, default=config.DEFAULT_TOLERANCE, metavar="N",
                       help=f"extent tolerance in aligned words (default {config.DEFAULT_TOLERANCE})")
    score.add_argument("--mapping", choices=MAPPINGS, default="optimal", help="entity mapping (default optimal)")
    score.add_argument("--muc", action="store_true", help="MUC mode: type and text (extent+content), tolerance 0")
    score.add_argument("--ref-format", choices=FORMATS, default=None, help="reference format (default: detect)")
    score.add_argument("--hyp-format", choices=FORMATS, default=None, help="hypothesis format (default: detect)")
    score.add_argument("--tagger", default=None, metavar="MODEL",
                       help="tag an untagged hypothesis with this model (default: the shipped tagger)")
    score.add_argument("--pairs", choices=("all", "errors", "none"), default="all",
                       help="which entity pairs the aligned view shows (default all)")
    score.add_argument("--json", action="store_true", help="print the scores as JSON")
    score.set_defaults(func=_score)

    tag = sub.add_parser("tag", help="tag the words of a text file, print them with ENAMEX mark-up")
    tag.add_argument("file", metavar="FILE", help="plain text (recognizer output), '-' for standard input")
    tag.add_argument("--model", default=None, metavar="NAME",
                     help="'rules', 'cased', a trained model name or .npz (default: the shipped tagger the "
                          "text's case calls for)")
    tag.add_argument("--json", action="store_true", help="print the entities as JSON")
    tag.set_defaults(func=_tag)

    train = sub.add_parser("train", help="train a statistical tagger on CoNLL-format data")
    train.add_argument("conll_dir", metavar="CONLL_DIR", help="folder with train (and test) files, CoNLL-2003 layout")
    train.add_argument("--out", required=True, metavar="NAME", help="model name (or path ending in .npz)")
    train.add_argument("--epochs", type=positive_int, default=config.PERCEPTRON_EPOCHS, metavar="N",
                       help=f"passes over the data (default {config.PERCEPTRON_EPOCHS})")
    train.add_argument("--keep-case", action="store_true", help="do not lower-case the training text")
    train.add_argument("--cased", action="store_true",
                       help="train on the words as shown (case, punctuation attached, sentence ends): a model for "
                            "Whisper output and text, like the shipped cased model")
    train.set_defaults(func=_train)


def _score(args) -> int:
    ref_path = Path(args.ref)
    if not ref_path.is_file():
        raise NotFoundError(f"{args.ref}: no such reference file")
    ref, _ = read_transcript(ref_path, args.ref_format)
    if Path(args.hyp).is_file():
        hyp, fmt = read_transcript(Path(args.hyp), args.hyp_format)
        untagged = fmt == "ctm" and not hyp.entities
    else:
        hyp = _hyp_from_index(args)
        untagged = not hyp.entities
    if untagged:
        tagger = load_tagger(args.tagger)
        hyp = with_entities(hyp, tagger.tag([w.lower() for w in hyp.words]))
        log.info("tagged the hypothesis with the %s tagger: %d entities", tagger.name, len(hyp.entities))
    if note := unmatched_units(ref, hyp):
        print(f"note: {note}", file=sys.stderr)
    report = score(ref, hyp, align_mode=args.align, tolerance=args.tolerance, mapping=args.mapping, muc=args.muc)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
        return 0
    print(format_table(report))
    if args.pairs != "none":
        print()
        print(format_pairs(report, only_errors=args.pairs == "errors"))
    return 0


def _hyp_from_index(args):
    store = open_store(args)
    try:
        try:
            rec = store.recording(args.hyp)
        except NotFoundError:
            raise NotFoundError(f"{args.hyp}: neither a file nor a recording in the index") from None
        return transcript_from_index(store.words(rec["id"]), store.entities(rec["id"]), name=str(rec.get("name", args.hyp)))
    finally:
        store.close()


def _tag(args) -> int:
    if args.file == "-":
        text = sys.stdin.read()
    else:
        path = Path(args.file)
        if not path.is_file():
            raise NotFoundError(f"{args.file}: no such file")
        text = path.read_text(encoding="utf-8", errors="replace")
    words = text.split()
    # Without --model, as ingest does: the cased model when the text carries case, else the rules.
    spans = tag_shown(words) if args.model is None else load_tagger(args.model).tag(words)
    if args.json:
        print(json.dumps([{"type": s.type, "first_word": s.first_word, "last_word": s.last_word, "text": s.text,
                           "score": round(s.score, 4)} for s in spans], indent=2))
        return 0
    print(markup(words, spans))
    return 0


def markup(words: list[str], spans) -> str:
    """Words with MUC mark-up around the entities."""

    opens = {s.first_word: s for s in spans}
    closes = {s.last_word: s for s in spans}
    out = []
    for i, w in enumerate(words):
        if i in opens:
            s = opens[i]
            w = f'<{TYPE_ELEMENT.get(s.type, "ENAMEX")} TYPE="{s.type}">' + w
        if i in closes:
            w += f"</{TYPE_ELEMENT.get(closes[i].type, 'ENAMEX')}>"
        out.append(w)
    return " ".join(out)


def _train(args) -> int:
    files = find_conll_files(args.conll_dir)
    lower = not args.keep_case
    train = read_conll(files["train"], lower=lower, shown=args.cased)
    t0 = time.perf_counter()
    model = train_tagger([(d.words, d.entities) for d in train], epochs=args.epochs, cased=args.cased,
                         progress=log.info)
    out = model.save(model_path(args.out))
    print(f"trained on {sum(len(d.words) for d in train)} words of {files['train'].name} "
          f"in {time.perf_counter() - t0:.0f} s; saved {out}")
    for split in ("valid", "test"):
        if split in files:
            docs = read_conll(files[split], lower=lower, shown=args.cased)
            types = tuple(sorted({s.type for d in docs for s in d.entities}))
            result = evaluate_spans(docs, [model.tag(d.words) for d in docs], types)
            per_type = ", ".join(f"{t} {result[t]['f']:.3f}" for t in types)
            print(f"{files[split].name}: F {result['overall']['f']:.3f} ({per_type})")
    return 0
