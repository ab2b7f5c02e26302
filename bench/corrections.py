"""The correction detector (core/correction.py) on its corpus (tests/core/correction_phrasings.py):
how many corrections are found with the right target, and how many look-alikes are taken for one;
the grammar alone and the grammar with the classifier (core/correction_model.py) beside it.

    .venv/bin/python bench/corrections.py [--show] [--grammar-only]
    .venv/bin/python bench/corrections.py --train [--lam 0.3] [--rounds 1-4|all] [--dry-run] [--open]   # fit the classifier (bench/correction_model_fit.py)

Tune, held-out and the three fresh sets (tests/core/correction_heldout.py, correction_fresh2.py and
correction_fresh3.py, written later, all held out) are reported apart, tune and held-out also by
round (rounds one to four, written for the grammar's markers; round five, turns as people chat,
most with no marker); fresh3 also counts ordinary chat turns taken for a correction; `--show` lists the tune split's failures only, so
the held-out cases are never read case by case while tuning. The classifier scores the query vector
of each turn, embedded here in process by the engine the local embedder's workers run (prefix
"query: ", `core.embed.text.prepare` first, as recall embeds a turn); without that model the
combined figures are left out. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path
from typing import Callable, Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "core"))

from core.correction import Shown, find_correction, might_correct, near_correction  # noqa: E402
from core.update import find_update, stated  # noqa: E402
from core.changed import change_of, told  # noqa: E402
from core.correcting import reading  # noqa: E402
from core.correction_pair import WEIGHTS as PAIR_WEIGHTS, _load as _pair_load  # noqa: E402
from core.embed.text import prepare  # noqa: E402
from core.correction_model import CorrectionClassifier, _load, WEIGHTS, combine  # noqa: E402
from correction_open import combine_open  # noqa: E402  (the experiment, beside this file)
from correction_phrasings import CORRECTIONS, HELD_OUT, LOOK_ALIKES, TUNE, Case, split  # noqa: E402
import correction_heldout as fresh  # noqa: E402  (all held out: counted, never listed)
import correction_fresh2 as fresh2  # noqa: E402  (all held out: counted, never listed)
import correction_fresh3 as fresh3  # noqa: E402  (all held out: counted, never listed)
import correction_fresh4 as fresh4  # noqa: E402  (written blind before the update frames ran: counted, never listed)
import correction_fresh5 as fresh5  # noqa: E402  (written blind before the seventh round's markers were measured on it)
import correction_fresh6 as fresh6  # noqa: E402  (written blind before the change rule, core/changed.py, ran on it)
import correction_fresh7 as fresh7  # noqa: E402  (written blind after the change rule's second round, before it ran on it)
import correction_fresh8 as fresh8  # noqa: E402  (written blind before the change rule's third round ran on it)
import correction_fresh9 as fresh9  # noqa: E402  (written blind after the third review's narrowing)
import correction_fresh10 as fresh10  # noqa: E402  (written blind before the pair model ran on it: counted, never listed)
import correction_fresh11 as fresh11  # noqa: E402  (written blind before the pair model's final weights ran on it)
import correction_fresh12 as fresh12  # noqa: E402  (written blind before the pair model's refit on parts e and f ran on it)
import correction_review3 as review3  # noqa: E402  (white-box: written by a reviewer who read the deciders; markers narrowed against it)

FRESH = fresh.FRESH
FRESH2 = fresh2.FRESH2
FRESH3 = fresh3.FRESH3
FRESH4 = fresh4.FRESH4
FRESH5 = fresh5.FRESH5
FRESH6 = fresh6.FRESH6
FRESH7 = fresh7.FRESH7
FRESH8 = fresh8.FRESH8
FRESH9 = fresh9.FRESH9
FRESH10 = fresh10.FRESH10
FRESH11 = fresh11.FRESH11
FRESH12 = fresh12.FRESH12
REVIEW3 = review3.REVIEW3
SETS = (TUNE, HELD_OUT, FRESH, FRESH2, FRESH3, FRESH4, FRESH5, FRESH6, FRESH7, FRESH8, FRESH9, FRESH10, FRESH11, FRESH12, REVIEW3)
FRESH_SETS = {FRESH: fresh, FRESH2: fresh2, FRESH3: fresh3, FRESH4: fresh4, FRESH5: fresh5, FRESH6: fresh6, FRESH7: fresh7, FRESH8: fresh8,
              FRESH9: fresh9, FRESH10: fresh10, FRESH11: fresh11, FRESH12: fresh12, REVIEW3: review3}
PLAIN = {FRESH3: fresh3.ORDINARY, FRESH4: fresh4.ORDINARY, FRESH5: fresh5.ORDINARY, FRESH6: fresh6.ORDINARY, FRESH7: fresh7.ORDINARY, FRESH8: fresh8.ORDINARY,
         FRESH9: fresh9.ORDINARY, FRESH10: fresh10.ORDINARY, FRESH11: fresh11.ORDINARY, FRESH12: fresh12.ORDINARY}  # ordinary chat turns, counted with the look-alikes and apart
ROUNDS = {"r1-4": 1, "r5": 5, "r6": 6, "r7": 7}  # tune and held-out by round (six: look-alikes for the update frames; seven: pushback)
LOCAL_EMBEDDER = "local:multilingual-e5-small-q4"


def items(case: Case) -> list[Shown]:
    return [Shown(id=f"corpus-{zlib.crc32(case.text.encode())}-{i}", text=t) for i, t in enumerate(case.shown)]


def text_of(case: Case, shown: list[Shown]) -> str:
    return case.text.format(**{f"h{i}": s.handle for i, s in enumerate(shown)})


def cases_of(name: str, rnd: int | None = None) -> tuple[list[Case], list[Case]]:
    """A set's corrections and look-alikes (from fresh3 on, its ordinary turns after the look-alikes)."""
    if name in FRESH_SETS:
        m = FRESH_SETS[name]
        return m.CORRECTIONS, m.LOOK_ALIKES + list(getattr(m, "ORDINARY", []))
    pick = lambda cs: [c for c in split(cs, name) if rnd is None or c.round == rnd]  # noqa: E731
    return pick(CORRECTIONS), pick(LOOK_ALIKES)


def local_engine():
    """The local embedder's engine in this process (what its worker runs), or None without the model."""
    try:
        from core.embed.model_cache import ensure_model
        from core.embed.worker import load_engine

        return load_engine().E5Onnx(ensure_model()[0], threads=1)
    except Exception as e:  # no model on this machine: the grammar's figures only
        print(f"(no local embedder: {type(e).__name__}: {e})", file=sys.stderr)
        return None


def embed_turns(engine, texts: Sequence[str]) -> dict[str, list[float]]:
    """Query vectors of the turns, as recall's `embed_query` makes them."""
    from core.embed.text import prepare

    vecs = engine.encode([prepare(t) for t in texts], True)
    return {t: [float(x) for x in v] for t, v in zip(texts, vecs)}


Decide = Callable[[str, list[Shown]], object]


def judge(case: Case, decide: Decide) -> tuple[bool, str]:
    shown = items(case)
    found = decide(text_of(case, shown), shown)
    if case.target is None:
        return found is None, "" if found is None else f"took it for a correction of {found.target.text!r}"
    if found is None:
        return False, "missed"
    if found.target.id != shown[case.target].id:
        return False, f"wrong target {found.target.text!r}"
    return True, ""


def measure(name: str, show: bool, decide: Decide = find_correction, rnd: int | None = None) -> dict:
    out = {}
    for label, cs in zip(("corrections", "look_alikes"), cases_of(name, rnd)):
        verdicts = [(c, *judge(c, decide)) for c in cs]
        out[label] = {"cases": len(cs), "right": sum(ok for _, ok, _ in verdicts)}
        if show and name == TUNE:
            for c, ok, why in verdicts:
                if not ok:
                    print(f"  {label}: {c.text!r} -> {why}")
    if name in PLAIN:  # the ordinary turns apart: plain chat about the item's topic
        plain = PLAIN[name]
        out["ordinary"] = {"cases": len(plain), "right": sum(judge(c, decide)[0] for c in plain)}
    found = out["corrections"]["right"] / max(1, out["corrections"]["cases"])
    false = 1 - out["look_alikes"]["right"] / max(1, out["look_alikes"]["cases"])
    return {**out, "found": round(found, 4), "false": round(false, 4)}


def combined_decider(model: CorrectionClassifier, vectors: dict[str, list[float]], open_at: float | None = None) -> Decide:
    """Grammar and classifier as Amber combines them; with `open_at` (weights fitted with --open)
    also the experiment that acts on turns with no marker (bench/correction_open.py)."""
    if open_at is None:
        return lambda text, shown: combine(text, shown, model.score(vectors[text]), model)
    return lambda text, shown: combine_open(text, shown, model.score(vectors[text]), model, open_at)


def changes(name: str, decide: Decide) -> dict[str, int]:
    """What the classifier changed against the grammar alone: hits it vetoed, near misses it took
    (rescued), turns with no marker it took (opened)."""
    out = {"vetoed_corrections": 0, "vetoed_look_alikes": 0, "rescued_corrections": 0, "rescued_look_alikes": 0,
           "opened_corrections": 0, "opened_look_alikes": 0}
    for cs in cases_of(name):
        for c in cs:
            shown = items(c)
            text = text_of(c, shown)
            alone, both = find_correction(text, shown), decide(text, shown)
            kind = "corrections" if c.target is not None else "look_alikes"
            if alone is not None and both is None:
                out[f"vetoed_{kind}"] += 1
            elif alone is None and both is not None:
                out[f"{'rescued' if near_correction(text, shown) is not None else 'opened'}_{kind}"] += 1  # a rescued correction may still name the wrong item: `measure` says
    return out


def line(name: str, what: str, r: dict) -> str:
    c, la = r["corrections"], r["look_alikes"]
    text = (f"{name:14s} {what:8s} corrections found with the right target {r['found']:.1%} ({c['right']}/{c['cases']}), "
            f"look-alikes taken for one {r['false']:.1%} ({la['cases'] - la['right']}/{la['cases']})")
    if "ordinary" in r:
        o = r["ordinary"]
        text += f", of them ordinary turns {o['cases'] - o['right']}/{o['cases']}"
    return text


def with_updates(decide: Decide) -> Decide:
    """The correction grammar (and classifier) first, then a new value said for a shown item's slot
    (core/update.py)."""
    return lambda text, shown: decide(text, shown) or find_update(text, shown)


def with_changes(model: CorrectionClassifier | None = None, vectors: dict[str, list[float]] | None = None) -> Decide:
    """As Amber decides a turn (core/correcting.reading): the grammar (with the classifier, given its
    turns' vectors), then `with_updates`, then a change told in passing on a shown memory's topic
    (core/changed.py)."""
    return lambda text, shown: read_as_amber(text, shown, model, vectors).settled


def read_as_amber(text: str, shown: list[Shown], model: CorrectionClassifier | None, vectors: dict[str, list[float]] | None):
    score = model.score(vectors[text]) if model is not None else None
    return reading(text, shown, might_correct(text), stated(text), told(text), score, model)


def second(texts: list[str], _seen: dict = {}):  # noqa: B006 (a cache across calls, on purpose)
    """The sentence arm's model, as the hot path reads the pair model's second opinion (cached by text)."""
    import numpy as np
    from core.embed.sentence import shared

    need = [t for t in dict.fromkeys(texts) if t not in _seen]
    if need:
        enc = shared()
        enc.wait()
        _seen.update(zip(need, enc.encode(need)))
    return np.asarray([_seen[t] for t in texts])


def with_pair(model: CorrectionClassifier, pair, vectors: dict[str, list[float]], passages: dict[str, list[float]]) -> Decide:
    """As Amber decides a turn with the local embedder in process: the rules (`with_changes` with the
    classifier), then the pair model over the shown memories (core/correction_pair.py)."""
    def decided(text: str, shown: list[Shown]):
        r = read_as_amber(text, shown, model, vectors)
        return pair.decide(text, shown, vectors[text], {s.id: passages[s.text] for s in shown}, r, second)

    return decided


def frames_cost(repeat: int = 20) -> dict:
    """What reading a turn with the update frames and the change words costs (`stated` and `told`,
    run on every turn that reaches the hook): microseconds per turn over every corpus turn, `repeat`
    times."""
    import time

    from core.update import stated

    texts = [c.text for name in SETS for cs in cases_of(name) for c in cs]
    took = []
    for _ in range(repeat):
        for t in texts:
            at = time.perf_counter()
            stated(t)
            told(t)
            took.append((time.perf_counter() - at) * 1e6)
    took.sort()
    return {"turns": len(texts), "p50": round(took[len(took) // 2], 1), "p99": round(took[int(len(took) * 0.99)], 1)}


HOSTILE = ["I quit, " * 75, "I quit coffee now. " * 31, "现在，" * 200, "not " * 150 + "coffee", "hannah's " * 70 + "sister moved now",
           "x, " * 199 + "now", "mine's " * 85, "都" * 300 + "了"]


def hostile_cost(repeat: int = 5) -> dict:
    """The change words' worst cases: turns at the 600-character limit built to make every sentence or
    clause a candidate, read against two shown items. Milliseconds per turn, the slowest of them."""
    import time

    shown = [Shown(id="a", text="Loves coffee, drinks three cups a day"), Shown(id="b", text="我住在北京朝阳区")]
    took = []
    for t in HOSTILE * repeat:
        at = time.perf_counter()
        change_of(told(t), shown)
        took.append((time.perf_counter() - at) * 1e3)
    return {"turns": len(HOSTILE), "max_ms": round(max(took), 2), "p50_ms": round(sorted(took)[len(took) // 2], 2)}


def by_round(decide: Decide = find_correction) -> dict:
    return {f"{name} {label}": measure(name, False, decide, rnd) for name in (TUNE, HELD_OUT) for label, rnd in ROUNDS.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--grammar-only", action="store_true", help="skip the classifier (no model loaded)")
    ap.add_argument("--train", action="store_true", help="fit the classifier on the tune split and write its weights")
    ap.add_argument("--lam", type=float, default=0.3, help="with --train: the L2 penalty")
    ap.add_argument("--dry-run", action="store_true", help="with --train: print, write nothing")
    ap.add_argument("--rounds", choices=("1-4", "all"), default="1-4",
                    help="with --train: the tune rounds fitted on (1-4: the shipped weights; all: with round five, not adopted)")
    ap.add_argument("--open", action="store_true", help="with --train: act on turns with no marker (not adopted: bench/README.md)")
    a = ap.parse_args()
    if a.train:
        from correction_model_fit import train

        print(json.dumps(train(a.lam, a.dry_run, a.open, a.rounds)))
        return
    result: dict = {name: measure(name, False) for name in SETS} | by_round()
    for name in result:
        print(line(name, "grammar", result[name]))
    updates = {name: measure(name, a.show, with_updates(find_correction)) for name in SETS} | by_round(with_updates(find_correction))
    for name in updates:
        print(line(name, "+updates", updates[name]))
    told_too = {name: measure(name, a.show, with_changes()) for name in SETS} | by_round(with_changes())
    for name in told_too:
        print(line(name, "+changes", told_too[name]))
    result = {"grammar": result, "grammar+updates": updates, "grammar+updates+changes": told_too, "frames_us": frames_cost(),
              "hostile": hostile_cost()}
    print(f"update frames and change words on every corpus turn: p50 {result['frames_us']['p50']} us, p99 {result['frames_us']['p99']} us")
    print(f"change words on hostile 600-character turns: p50 {result['hostile']['p50_ms']} ms, slowest {result['hostile']['max_ms']} ms")
    model = None if a.grammar_only else _load(str(WEIGHTS))
    engine = local_engine() if model is not None and model.embedder == LOCAL_EMBEDDER else None
    if engine is not None:
        texts = sorted({text_of(c, items(c)) for name in SETS for cs in cases_of(name) for c in cs})
        open_at = json.loads(WEIGHTS.read_text(encoding="utf-8")).get("open")  # set only by --train --open
        vectors = embed_turns(engine, texts)
        decide = combined_decider(model, vectors, open_at)
        combined = {name: {**measure(name, False, decide), "changed": changes(name, decide)} for name in SETS} | by_round(decide)
        for name in combined:
            changed = combined[name].get("changed")
            print(line(name, "combined", combined[name]) + ("; " + ", ".join(f"{k} {v}" for k, v in changed.items()) if changed else ""))
        shipped = {name: measure(name, False, with_changes(model, vectors)) for name in SETS} | by_round(with_changes(model, vectors))
        for name in shipped:
            print(line(name, "shipped", shipped[name]))
        result |= {"combined": combined, "shipped": shipped, "classifier": {"veto": model.veto, "rescue": model.rescue, "open": open_at}}
        pair = _pair_load(str(PAIR_WEIGHTS))
        if pair is not None and pair.embedder == LOCAL_EMBEDDER:
            items_of = {s.text for name in SETS for cs in cases_of(name) for c in cs for s in items(c)}
            passages = dict(zip(sorted(items_of), engine.encode([prepare(t) for t in sorted(items_of)], False).tolist()))
            paired = {name: measure(name, False, with_pair(model, pair, vectors, passages)) for name in SETS}
            for name in paired:
                print(line(name, "+pair", paired[name]))
            result |= {"with_pair": paired, "pair": {"veto": pair.veto, "rescue": pair.rescue}}
    else:
        result |= {"combined": None, "shipped": None}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
