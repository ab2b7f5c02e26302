"""Secret redaction: what ordinary conversation loses, and what planted secrets keep.

    .venv/bin/python bench/redaction.py [--locomo ../shared/eval/locomo/locomo_dev.json] [--show]
    .venv/bin/python bench/redaction.py --corpus-only [--show] [--show-held-out]

Corpus (tests/core/redaction_corpus.py, written before the detector was tuned on it): secrets as
people say them in chat (passwords, login pairs, PINs, door and 2FA codes, CVVs, national ids; eight
languages) and harmless look-alikes (dates, versions, SHAs, UUIDs, IMEIs, phone numbers, "my
password is wrong"). Recall is the share of secrets of which nothing is left readable; the
false-positive rate is the share of harmless sentences changed at all. Both are reported for the
"tune" split, the "held_out" third (never looked at while tuning) and the whole, against the
targets ≥ 98 % and ≤ 1 %; and, with phone redaction switched on, for the phone sentences.
`--show` prints the tune split's misses; `--show-held-out` the held-out ones (look only after tuning).

False positives: every LoCoMo turn (its words and a shared photo's caption, as a capture stores
them) and every MADial dialogue line (zh and en) goes through `core.redact.redact`; the share of
turns it altered is reported (target ≤ 1 % on LoCoMo). Recall: the seeded corpus of
tests/core/redact_corpus.py (EN and ZH sentences with planted keys, passwords, cards, IBANs):
the share whose secret no longer appears, and how many look-alike sentences were left unchanged.
`--show` prints each altered turn (to the terminal only: no evaluation text is written anywhere).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "core"))

import redaction_corpus as corpus  # noqa: E402
from core.redact import Redactor, redact  # noqa: E402
from redact_corpus import NOT_SECRETS, PLANTED  # noqa: E402

RECALL_TARGET, FP_TARGET = 0.98, 0.01

EVAL = HERE.parent.parent / "shared" / "eval"


def locomo_turns(path: Path) -> list[tuple[str, str]]:
    out = []
    for sample in json.loads(path.read_text()):
        conv = sample["conversation"]
        for key in sorted((k for k in conv if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1])):
            for turn in conv[key]:
                text = turn["text"] + (f" [shares {turn['blip_caption']}]" if turn.get("blip_caption") else "")
                out.append((f"{sample['sample_id']}:{turn['dia_id']}", text))
    return out


def madial_lines(path: Path) -> list[tuple[str, str]]:
    out = []
    for n, line in enumerate(path.read_text().splitlines()):
        for i, said in enumerate(json.loads(line)["dialogue"]):
            text = re.sub(r"^<[^>]+>:", "", said.strip()).strip().strip('"')
            if text and text not in ("<BOD>", "<EOD>"):
                out.append((f"{path.stem}:{n}:{i}", text))
    return out


def altered(turns: list[tuple[str, str]], show: bool) -> dict:
    hits, by = [], Counter()
    started = time.perf_counter()
    for tid, text in turns:
        out, findings = redact(text)
        if findings:
            hits.append(tid)
            by.update(f.detector for f in findings)
            if show:
                print(f"  {tid}: {text!r}\n    -> {out!r}", file=sys.stderr)
    ms = (time.perf_counter() - started) * 1000 / max(1, len(turns))
    return {"turns": len(turns), "altered": len(hits), "share": round(len(hits) / max(1, len(turns)), 5),
            "by_detector": dict(by), "ids": hits[:20], "ms_per_turn": round(ms, 3)}


def corpus_split(secrets: list, harmless: list, redactor: Redactor, show: bool) -> dict:
    missed = [c for c in secrets if corpus.leaked(c, redactor.redact(c.text)[0])]
    changed = [c for c in harmless if corpus.changed(c, redactor.redact(c.text)[0])]
    if show:
        for c in missed:
            print(f"  missed {c.split} {c.lang} {c.kind}: {c.text!r} -> {redactor.redact(c.text)[0]!r}", file=sys.stderr)
        for c in changed:
            print(f"  changed {c.split} {c.lang} {c.kind}: {c.text!r} -> {redactor.redact(c.text)[0]!r}", file=sys.stderr)
    recall = (len(secrets) - len(missed)) / max(1, len(secrets))
    fp = len(changed) / max(1, len(harmless))
    return {"secrets": len(secrets), "redacted": len(secrets) - len(missed), "recall": round(recall, 4),
            "harmless": len(harmless), "changed": len(changed), "fp_rate": round(fp, 4),
            "meets_targets": recall >= RECALL_TARGET and fp <= FP_TARGET,
            "missed_kinds": dict(Counter(c.kind for c in missed)), "changed_kinds": dict(Counter(c.kind for c in changed))}


def corpus_figures(show: bool, show_held_out: bool) -> dict:
    default = Redactor()
    out: dict = {"targets": {"recall": RECALL_TARGET, "fp_rate": FP_TARGET}}
    for name, show_it in ((corpus.TUNE, show), (corpus.HELD_OUT, show_held_out)):
        out[name] = corpus_split(corpus.split(corpus.SECRETS, name), corpus.split(corpus.HARMLESS, name), default, show_it)
    out["all"] = corpus_split(corpus.SECRETS, corpus.HARMLESS, default, False)
    started = time.perf_counter()
    for c in corpus.SECRETS + corpus.HARMLESS:
        default.redact(c.text)
    out["all"]["ms_per_sentence"] = round((time.perf_counter() - started) * 1000 / (len(corpus.SECRETS) + len(corpus.HARMLESS)), 3)
    # phones are harmless by default; with the setting on they go, and nothing else changes more
    phones = Redactor(phones=True)
    others = [c for c in corpus.HARMLESS if c.kind != "phone"]
    out["phones_opt_in"] = corpus_split(corpus.PHONES, others, phones, show)
    out["phones_opt_in"]["secrets_still_redacted"] = sum(not corpus.leaked(c, phones.redact(c.text)[0]) for c in corpus.SECRETS)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--locomo", default=str(EVAL / "locomo" / "locomo_dev.json"))
    ap.add_argument("--madial", default=str(EVAL / "madial"))
    ap.add_argument("--show", action="store_true", help="print altered turns and the corpus' tune-split misses to stderr")
    ap.add_argument("--show-held-out", action="store_true", help="print the held-out misses too (only after tuning)")
    ap.add_argument("--corpus-only", action="store_true", help="skip LoCoMo and MADial (the corpus needs no evaluation data)")
    args = ap.parse_args()

    redact("warm up: sk-proj-x")  # the first call imports the detectors
    result: dict = {"bench": "redaction"}
    result["corpus"] = corpus_figures(args.show, args.show_held_out)
    if not args.corpus_only and Path(args.locomo).exists():
        result["locomo"] = altered(locomo_turns(Path(args.locomo)), args.show)
    madial = Path(args.madial)
    for lang in ("zh", "en") if not args.corpus_only else ():
        f = madial / f"{lang}-dialogue-dev.jsonl"
        if f.exists():
            result[f"madial_{lang}"] = altered(madial_lines(f), args.show)

    missed = [s for s, secret in PLANTED if secret in redact(s)[0]]
    changed = [s for s in NOT_SECRETS if redact(s)[0] != s]
    result["seeded"] = {"planted": len(PLANTED), "redacted": len(PLANTED) - len(missed),
                        "recall": round((len(PLANTED) - len(missed)) / len(PLANTED), 4),
                        "look_alikes": len(NOT_SECRETS), "look_alikes_altered": len(changed)}
    for s in missed:
        print(f"missed: {s!r}", file=sys.stderr)
    c = result["corpus"]
    for name in (corpus.TUNE, corpus.HELD_OUT, "all"):
        print(f"corpus {name:8s}: recall {c[name]['recall']:.2%} ({c[name]['redacted']}/{c[name]['secrets']}), "
              f"false positives {c[name]['fp_rate']:.2%} ({c[name]['changed']}/{c[name]['harmless']}); "
              f"targets ≥ {RECALL_TARGET:.0%} and ≤ {FP_TARGET:.0%}: {'met' if c[name]['meets_targets'] else 'NOT met'}")
    p = c["phones_opt_in"]
    print(f"phones on: {p['redacted']}/{p['secrets']} phone numbers redacted, {p['changed']}/{p['harmless']} other harmless changed")
    if "locomo" in result:
        print(f"LoCoMo: {result['locomo']['altered']}/{result['locomo']['turns']} turns altered "
              f"({result['locomo']['share']:.2%}, target ≤ 1 %)")
    print(f"seeded recall {result['seeded']['recall']:.2%}", flush=True)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
