"""Abstention that generalises: unrelated prompts by family, real questions by store size, per item.

Recall injects an item only when its own evidence clears the floor (relevance.py). This bench asks
whether the floor holds on prompts and stores it was not fitted on:

- six families of prompts about nobody (bench/prompts/families/*.txt: coding, trivia, maths and
  units, language and writing, science, chit-chat; English and Chinese), asked as every user;
- real questions: LoCoMo (turns captured, ~550 a person), MADial-Bench zh and en (~80 memories a
  person), and the small-store cases (bench/prompts/small_store.jsonl: one memory and a direct
  question about it) asked of a person who holds that memory only, that one among 10, and that one
  among ~3 000 memories (every LoCoMo turn and MADial event as a memory, all the cases too).

Every (prompt, person) pair is searched once through `MemoryService.search` and its candidates'
evidence (similarity, coverage, kind) kept; the floor is then applied to them by the product's own
pure functions (`relevance.admitted`), so a grid of floors costs no further search.

**Leave one family out.** For each family F and each half H of the real questions (LoCoMo: odd and
even conversations; MADial: seed-32 dialogue halves as in recall_folds.py; small stores: odd and
even cases), the grid's floors that keep >= 95 % of the other half's real questions served (some
item injected; for a small store, its memory) with the fewest of the other five families' prompts
injected are chosen, then F's injected share and H's served share are reported. The worst held-out
family is the figure to watch.

    .venv/bin/python bench/abstention.py [--locomo-limit N] [--vectors /tmp/amber-vectors.pkl] [--features OUT.json]
    .venv/bin/python bench/abstention.py --from-features OUT.json     # calibration only, seconds

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import os
import pickle
import random
import re
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("AMBER_RECALL_INDEX_WAIT_S", "3600")  # recall quality: every query waits for the whole turn index
os.environ.setdefault("AMBER_RECALL_READING_WAIT_S", "3600")  # and for the sentence model's reading of memories and turns
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from core import Actor, Kind, MemoryIn, Settings, build_embedder, build_service, fingerprints, scope_for  # noqa: E402
from core.recall.config import RecallConfig  # noqa: E402
from core.recall.fusion import Candidate  # noqa: E402
from core.recall.relevance import Floor, admitted, is_cjk, select  # noqa: E402
from core.recall.small_talk import about_me, small_talk  # noqa: E402
import locomo_recall  # noqa: E402
import madial_recall  # noqa: E402

HERE = Path(__file__).resolve().parent
FAMILIES = HERE / "prompts" / "families"
CASES = HERE / "prompts" / "small_store.jsonl"
CHATS = HERE / "prompts" / "assistant_chats.json"  # a person's chats with an assistant (written for Amber, LoCoMo's format)
EPOCH = datetime(2024, 1, 1, tzinfo=timezone.utc)
SERVED = 0.95  # share of real questions that must still be served on the tuning side
FRESH = "_fresh"  # in a family's name: from --fresh, held out from every choice


def load_families(folder: Path = FAMILIES) -> dict[str, list[str]]:
    out = {}
    for path in sorted(folder.glob("*.txt")):
        out[path.stem] = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")]
    return out


def load_cases(path: Path = CASES) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def cached_vectors(embedder, path: Path | None) -> dict:
    """Vectors kept by (method, text) and, with a path, across runs: a second run embeds nothing."""
    store: dict = {}
    if path and path.exists():
        store = pickle.loads(path.read_bytes())
    for name in ("embed_documents", "embed_background", "embed_query"):
        orig = getattr(embedder, name)
        if name == "embed_query":
            def one(text, orig=orig, name=name):
                key = (name, text)
                if key not in store:
                    store[key] = orig(text)
                return store[key]
            setattr(embedder, name, one)
        else:
            def many(texts, orig=orig, name=name):
                missing = [t for t in dict.fromkeys(texts) if (name, t) not in store]
                if missing:
                    store.update({(name, t): v for t, v in zip(missing, orig(missing))})
                return [store[(name, t)] for t in texts]
            setattr(embedder, name, many)
    return store


def row_of(pool: list[Candidate], relevant: set[str], background: dict[str, float] | None = None, **meta) -> dict:
    """One asked prompt: its candidates' evidence (source, similarity, coverage, is it an answer, a
    background similarity or None)."""
    bg = background or {}
    return {**meta, "items": [[c.source, round(c.dense, 4), round(c.lexical, 4), c.id in relevant,
                               round(bg[c.id], 4) if c.id in bg else None] for c in pool]}


def ask(svc, scope, query: str, cfg: RecallConfig, relevant: set[str] = frozenset(), **meta) -> dict:
    """The candidates recall would weigh for this prompt: a wide search, less echoes and filler, with
    the background of the memories and turns among them as recall reads it (background.py)."""
    pool = svc.search(scope, query, config=cfg)
    pool = select(pool, echo=frozenset(fingerprints([query])), query=query)[: cfg.top_k]
    return row_of(pool, relevant, svc.recaller.backgrounds_of(scope, pool), cjk=is_cjk(query), query=query, **meta)


def collect(args, embedder) -> list[dict]:
    families = load_families()
    for folder in args.fresh or ():  # families written after the floors were chosen: asked and reported, never used to choose
        families |= {f"{name}_{folder.name}": ps for name, ps in load_families(folder).items()}
    cases = load_cases()
    if args.smoke:  # two prompts of each family (one Chinese), four cases
        families = {f: ps[:1] + [p for p in ps if is_cjk(p)][:1] for f, ps in families.items()}
        cases = cases[:2] + cases[-2:]
    rows: list[dict] = []
    cfg = RecallConfig(top_k=10)
    unrelated = [(fam, p) for fam, ps in families.items() for p in ps]

    def unrelated_rows(svc, scope, store: str, group: str, n_mem: int, n_msg: int, every: int = 1) -> None:
        for j, (fam, p) in enumerate(unrelated):
            if j % every == 0:
                rows.append(ask(svc, scope, p, cfg, store=store, group=group, family=fam, n_mem=n_mem, n_msg=n_msg))

    with tempfile.TemporaryDirectory(prefix="amber-abstention-") as tmp:
        svc = build_service(Settings(data_dir=Path(tmp)), embedder=embedder)
        try:
            # small stores: a case's memory alone, and among nine others of the same language
            lang_of = ["zh" if is_cjk(c["question"]) else "en" for c in cases]
            for i, case in enumerate(cases):
                one = scope_for(Actor(user_id=f"one-{i}", via="bench"))
                mid = svc.remember(one, MemoryIn(content=case["memory"], kind=Kind.fact, valid_from=EPOCH)).memory.id
                rows.append(ask(svc, one, case["question"], cfg, {mid}, store="small-1", group=f"case-{i}", family="real", n_mem=1, n_msg=0))
                unrelated_rows(svc, one, "small-1", f"case-{i}", 1, 0, every=1 if i % 4 == 0 else 7)
                ten = scope_for(Actor(user_id=f"ten-{i}", via="bench"))
                others = [j for j in range(len(cases)) if j != i and lang_of[j] == lang_of[i]]
                random.Random(i).shuffle(others)
                ids = {}
                for j in [i] + others[:9]:
                    ids[j] = svc.remember(ten, MemoryIn(content=cases[j]["memory"], kind=Kind.fact, valid_from=EPOCH)).memory.id
                rows.append(ask(svc, ten, case["question"], cfg, {ids[i]}, store="small-10", group=f"case-{i}", family="real", n_mem=10, n_msg=0))
                if i % 4 == 1:
                    unrelated_rows(svc, ten, "small-10", f"case-{i}", 10, 0)
            print(f"small stores: {len(rows)} rows", flush=True)

            # MADial: each person's memories; the dialogues are the real questions
            for lang in ("zh", "en"):
                mems = madial_recall.load_memories(madial_recall.DATA / f"{lang}-memory.jsonl")
                owner = {k: v.get("user-id") for k, v in madial_recall.load_memories(madial_recall.DATA / "zh-memory.jsonl").items()}
                ids: dict[str, str] = {}
                count: dict[str, int] = {}
                for mid, rec in mems.items():
                    user = f"madial-{lang}-{rec.get('user-id', owner.get(mid))}"
                    when = datetime.strptime(rec["time"], "%Y-%m-%d").replace(tzinfo=timezone.utc)
                    sc = scope_for(Actor(user_id=user, via="bench"))
                    ids[mid] = svc.remember(sc, MemoryIn(content=rec["event"], kind=Kind.event, valid_from=when)).memory.id
                    count[user] = count.get(user, 0) + 1
                dialogues = [json.loads(x) for x in (madial_recall.DATA / f"{lang}-dialogue-dev.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
                order = list(range(len(dialogues)))
                random.Random(32).shuffle(order)
                half = {d: ("a" if k < len(order) // 2 else "b") for k, d in enumerate(order)}
                for k, d in enumerate(dialogues):
                    user = f"madial-{lang}-{d['user-id']}"
                    rel = {ids[str(r)] for r in d["relevant-id"] if str(r) in ids}
                    rows.append(ask(svc, scope_for(Actor(user_id=user, via="bench")), madial_recall.dialogue_query(d), cfg, rel,
                                    store=f"madial-{lang}", group=f"half-{half[k]}", family="real", n_mem=count[user], n_msg=0))
                for user, n in count.items():
                    unrelated_rows(svc, scope_for(Actor(user_id=user, via="bench")), f"madial-{lang}", user, n, 0)
                print(f"madial {lang}: {len(rows)} rows", flush=True)

            # a big store: every LoCoMo turn and MADial event as one person's memory, the cases among them
            if not args.no_big:
                big = scope_for(Actor(user_id="big", via="bench"))
                texts = [c["memory"] for c in cases]
                for path in sorted(madial_recall.DATA.glob("*-memory.jsonl")):
                    texts += [r["event"] for r in madial_recall.load_memories(path).values()]
                samples = json.loads(locomo_recall.DEFAULT_DATA.read_text())
                for s in samples:
                    texts += [m.content for m in locomo_recall.conversation_messages(s["conversation"])]
                case_ids = {}
                for t_i, text in enumerate(texts):
                    mid = svc.remember(big, MemoryIn(content=text, kind=Kind.fact, valid_from=EPOCH)).memory.id
                    if t_i < len(cases):
                        case_ids[t_i] = mid
                    if t_i % 500 == 0:
                        print(f"big store: {t_i}/{len(texts)}", flush=True)
                n_big = len(set(texts))
                for i, case in enumerate(cases):
                    rows.append(ask(svc, big, case["question"], cfg, {case_ids[i]}, store="big", group=f"case-{i}", family="real", n_mem=n_big, n_msg=0))
                unrelated_rows(svc, big, "big", "big", n_big, 0)
                print(f"big store ({n_big}): {len(rows)} rows", flush=True)
        finally:
            svc.close()

    # LoCoMo (two people talking), then a person's chats with an assistant (the same format): one
    # person per conversation, every turn captured
    sources = [(json.loads(locomo_recall.DEFAULT_DATA.read_text())[: args.locomo_limit or None], "locomo", 1)]
    sources += [(json.loads(path.read_text()), "chats", 1) for path in args.chats or ()]
    sources += [(json.loads(path.read_text()), "chats" + FRESH, 3) for path in args.chats_fresh or ()]
    for samples, store, every in sources:
        for n, sample in enumerate(samples):
            with locomo_recall.stored(sample, embedder, f"{store}-{n}") as (svc, scope, msgs):
                for q in locomo_recall.questions_of(sample):
                    rows.append(ask(svc, scope, q["question"], cfg, set(q["evidence"]), store=store, group=f"conv-{n}",
                                    family="real", n_mem=0, n_msg=len(msgs)))
                unrelated_rows(svc, scope, store, f"conv-{n}", 0, len(msgs), every=every)
            print(f"{store} {n + 1}/{len(samples)}: {len(rows)} rows", flush=True)
    return rows


# ---- calibration ---------------------------------------------------------------------------------


def candidates(row: dict) -> list[Candidate]:
    return [Candidate(id=str(k), text="", source=it[0], created_at=EPOCH, dense=it[1], lexical=it[2]) for k, it in enumerate(row["items"])]


def row_backgrounds(row: dict) -> dict[str, float]:
    """Background similarity by candidate id (features collected before it: none)."""
    return {str(k): it[4] for k, it in enumerate(row["items"]) if len(it) > 4 and it[4] is not None}


def outcome(row: dict, floor: Floor) -> tuple[bool, bool, float]:
    """(anything injected, an answer injected, share of the answers ranked that were injected)."""
    items = candidates(row)
    kept = admitted(items, row["cjk"], floor.for_query(row["query"]), {"memory": row["n_mem"], "message": row["n_msg"]}, row_backgrounds(row))
    got = {int(c.id) for c in kept}
    rel = [k for k, it in enumerate(row["items"]) if it[3]]
    hit = any(k in got for k in rel)
    return bool(kept), hit, (sum(k in got for k in rel) / len(rel)) if rel else 0.0


def served(row: dict, floor: Floor) -> bool:
    """A real question is served when memory is not withheld; a small store's, only by its memory."""
    any_, hit, _ = outcome(row, floor)
    return hit if row["store"] in ("small-1", "small-10", "big") else any_


def half_of(row: dict) -> str:
    g = row["group"]
    if g.startswith("conv-"):
        return "a" if int(g[5:]) % 2 == 0 else "b"
    if g.startswith("case-"):
        return "a" if int(g[5:]) % 2 == 0 else "b"
    return g[-1]


GRID = {
    "memory": [0.77, 0.78, 0.79, 0.80, 0.81, 0.82],
    "message": [0.81, 0.82, 0.83, 0.84, 0.85, 0.86],
    "per_decade": [0.0, 0.01, 0.015, 0.02, 0.025, 0.03],
    "lexical": [0.3, 0.4, 0.5],
    "cjk_offset": [0.03, 0.05, 0.07],
}


def floors():
    keys = list(GRID)
    for vals in itertools.product(*(GRID[k] for k in keys)):
        yield Floor(**dict(zip(keys, vals)), about_me=RecallConfig().floor_about_me)  # the about-me route as shipped (calibrate_about_me)


def rate(xs) -> float:
    xs = list(xs)
    return round(sum(xs) / len(xs), 4) if xs else 0.0


def mean(selected) -> float:
    """The mean of a numpy selection, 0 when it is empty (a smoke run's half may hold no store of a kind)."""
    return float(selected.mean()) if selected.size else 0.0


class Flat:
    """Every row's items in flat arrays, so a floor is tried on all of them at once (numpy). The
    arithmetic is relevance.admitted's; `check` compares it with the product's own function."""

    def __init__(self, rows: list[dict]) -> None:
        import numpy as np

        self.np = np
        items = [(r_i, it, r) for r_i, r in enumerate(rows) for it in r["items"]]
        self.row = np.array([r_i for r_i, _, _ in items], dtype=np.int64)
        self.mem = np.array([it[0] == "memory" for _, it, _ in items])
        self.dense = np.array([it[1] for _, it, _ in items])
        self.lex = np.array([it[2] for _, it, _ in items])
        self.rel = np.array([bool(it[3]) for _, it, _ in items])
        held = np.array([r["n_mem"] if it[0] == "memory" else r["n_msg"] for _, it, r in items], dtype=float)
        self.decades = np.log10(np.maximum(1.0, held))
        self.cjk = np.array([bool(r["cjk"]) for _, _, r in items])
        # dense - background where the background is known: a memory's margin (+inf: none to apply),
        # and any record's distinctness (-inf: none)
        over = np.array([it[1] - it[4] if len(it) > 4 and it[4] is not None else np.nan for _, it, _ in items])
        self.margin = np.where(self.mem & ~np.isnan(over), over, np.inf)
        self.distinct = np.where(np.isnan(over), -np.inf, over)
        talk = [small_talk(r["query"]) for r in rows]  # the prompt is small talk: the distinct route only (Floor.for_query)
        self.talk = np.array([talk[r_i] for r_i, _, _ in items], dtype=bool)
        mine = [not t and about_me(r["query"]) for t, r in zip(talk, rows)]  # a question about the person's own things (Floor.for_query)
        self.mine = np.array(mine, dtype=bool)
        self.n = len(rows)
        self.small = np.array([r["store"] in ("small-1", "small-10", "big") for r in rows])

    def outcome(self, fl: Floor):
        """Per row: anything injected, and served (an answer injected for a small store's question); a
        question about the person's own things under the floor Floor.for_query gives it."""
        if fl.about_me is None or fl.off or not self.mine.any():
            return self._outcome(fl)
        (any_a, serve_a), (any_b, serve_b) = self._outcome(dataclasses.replace(fl, about_me=None)), self._outcome(fl.for_me())
        return self.np.where(self.mine, any_b, any_a), self.np.where(self.mine, serve_b, serve_a)

    def _outcome(self, fl: Floor):
        np = self.np
        base, cjk = np.where(self.mem, fl.memory, fl.message), np.where(self.cjk, fl.cjk_offset, 0.0)
        one = base + cjk  # a person holding one record; floors are summed in Floor.dense_floor's order (a tie must fall alike)
        words = (fl.lexical > 0) & (self.lex >= fl.lexical)
        rise = fl.per_decade * self.decades
        m = -np.inf if fl.margin is None else fl.margin  # a memory's margin over its background (Floor._near_everything)
        alone = self.distinct >= (np.inf if fl.distinct is None else fl.distinct)  # Floor.distinct
        talk = self.talk if not fl.off and fl.reads_talk else np.zeros_like(self.talk)
        opens = ((self.dense >= base + rise + cjk) & (self.margin >= m + rise)) | words | alone  # the prompt is about the person
        opens = np.where(talk, alone, opens)
        any_ = np.bincount(self.row[opens], minlength=self.n) > 0
        ok = (((self.dense >= one) & (self.margin >= m)) | words | alone)  # then each item on its own evidence
        ok = np.where(talk, alone, ok) & any_[self.row]
        hit = np.bincount(self.row[ok & self.rel], minlength=self.n) > 0
        return any_, np.where(self.small, hit, any_)


def constrained(stores) -> list[str]:
    """The kinds of store whose real questions the floors must serve: all but the ~3 000-memory one
    (reported) and those written after the floors were chosen (`--chats-fresh`: reported, never chosen on)."""
    return sorted(st for st in set(stores) if st != "big" and FRESH not in st)


def fresh_families(rows: list[dict]) -> set[str]:
    return {r["family"] for r in rows if FRESH in r["family"]}


def calibrate(rows: list[dict]) -> dict:
    import numpy as np

    flat = Flat(rows)
    fams = sorted({r["family"] for r in rows} - {"real"} - fresh_families(rows))
    is_real = np.array([r["family"] == "real" for r in rows])
    fam = np.array([r["family"] for r in rows])
    stores = np.array([r["store"] for r in rows])
    half = np.array([half_of(r) if r["family"] == "real" else "" for r in rows])

    # the ~3 000-memory store is reported, not a constraint: its memories are LoCoMo chat lines
    # ("haha, that's great!"), nearer small talk than anything extraction would keep
    store_names = constrained(stores[is_real])
    grid = list(floors())
    # a family's injected share is the mean over the kinds of store (one memory, ten, MADial, LoCoMo),
    # each weighted alike however many of its prompt x person pairs were asked
    fam_mask = {(f, st): (fam == f) & (stores == st) for f in fams for st in store_names}
    # a small store's question counts when search ranked its memory at all: abstention is measured
    # on what ranking found (among ~3 000 chat lines search misses some answers; that is recall's)
    ranked = np.array([r["family"] != "real" or not flat.small[i] or any(it[3] for it in r["items"]) for i, r in enumerate(rows)])
    half_mask = {h: is_real & ranked & (half == h) for h in "ab"}
    half_mask.update({(h, st): is_real & ranked & (half == h) & (stores == st) for h in "ab" for st in store_names})
    scores = []
    for fl in grid:
        any_, serve = flat.outcome(fl)
        fam_rate = {f: sum(mean(any_[fam_mask[(f, st)]]) for st in store_names) / max(1, len(store_names)) for f in fams}
        half_rate = {h: mean(serve[m]) for h, m in half_mask.items()}
        scores.append((fl, fam_rate, half_rate, serve))
    folds = []
    for f, h in itertools.product(fams, "ab"):
        other = "b" if h == "a" else "a"
        # every kind of store on the tuning half keeps >= 95 % served: LoCoMo's 760 questions must
        # not outvote the 56 of a person with one memory
        ok = [sc for sc in scores if min((sc[2][(other, st)] for st in store_names), default=0.0) >= SERVED]
        ok = ok or sorted(scores, key=lambda sc: -min((sc[2][(other, st)] for st in store_names), default=0.0))[:20]
        best = min(ok, key=lambda sc: (sum(sc[1][g] for g in fams if g != f), -sc[2][other]))
        fl, serve = best[0], best[3]
        injected = flat.outcome(fl)[0]
        held = is_real & ranked & (half == h)
        folds.append({
            "held_out_family": f, "held_out_half": h, "floor": dict(fl.__dict__),
            "family_injected": round(best[1][f], 4), "real_served": round(best[2][h], 4),
            "by_store": {str(st): round(mean(serve[held & (stores == st)]), 4) for st in sorted(set(stores[held]))},
            "big_store_injected": round(mean(injected[(fam == f) & (stores == "big")]), 4),
            # the families written later, under this fold's floor (they chose nothing)
            "fresh_injected": {g: round(sum(mean(injected[(fam == g) & (stores == st)]) for st in store_names)
                                        / max(1, len(store_names)), 4) for g in sorted(fresh_families(rows))},
        })
    # the default: the same rule on every family and both halves (the folds above estimate how it holds)
    both = {st: is_real & ranked & (stores == st) for st in store_names}
    whole = []
    for fl, fam_rate, _, serve in scores:
        if min((mean(serve[m]) for m in both.values()), default=0.0) >= SERVED:
            whole.append((sum(fam_rate.values()), fl))
    chosen = min(whole, key=lambda x: x[0])[1] if whole else None
    return {"folds": folds, "families": fams, "chosen_on_all": dict(chosen.__dict__) if chosen else None}


DISTINCTS = [0.1, 0.08, 0.07, 0.06, 0.055, 0.05, 0.045, 0.04, 0.035, 0.03, 0.025, 0.02, 0.015, 0.01]
DISTINCT_ADDS = 0.0025  # unrelated prompts injected that Floor.distinct may add, on the families it is chosen on
MARGINS = [-0.10, -0.09, -0.08, -0.07, -0.06, -0.05, -0.045, -0.04, -0.035, -0.03, -0.025, -0.02, -0.015, -0.01, -0.005, 0.0]


def calibrate_margin(rows: list[dict], floor: Floor) -> dict:
    """A memory's margin over its background (relevance.Floor.margin), chosen on real questions only:
    on each half, the strictest margin that still serves every real question, store by store, that
    the floor alone serves there. No prompt family is read to choose it, so every family is held out;
    each pick is then reported on the other half, beside the floor alone. Then Floor.distinct, chosen
    on prompt families only, each family left out in turn (below), so every real question is held out."""
    import numpy as np

    flat = Flat(rows)
    is_real = np.array([r["family"] == "real" for r in rows])
    fam, stores = np.array([r["family"] for r in rows]), np.array([r["store"] for r in rows])
    half = np.array([half_of(r) if r["family"] == "real" else "" for r in rows])
    ranked = np.array([r["family"] != "real" or not flat.small[i] or any(it[3] for it in r["items"]) for i, r in enumerate(rows)])
    store_names = constrained(stores[is_real])
    fams = sorted(set(fam) - {"real"} - fresh_families(rows))

    def served_by_store(fl: Floor, halves: str) -> dict:
        serve = flat.outcome(fl)[1]
        return {st: int(serve[is_real & ranked & np.isin(half, list(halves)) & (stores == st)].sum()) for st in store_names}

    def figures(fl: Floor, h: str) -> dict:
        any_, serve = flat.outcome(fl)
        fam_rate = {f: round(sum(mean(any_[(fam == f) & (stores == st)]) for st in store_names) / max(1, len(store_names)), 4) for f in fams}
        return {"real_served": round(mean(serve[is_real & ranked & (half == h)]), 4), "families_injected": fam_rate,
                "worst_family": max(fam_rate.items(), key=lambda x: x[1], default=("", 0.0))}

    def pick(halves: str):
        alone = served_by_store(floor, halves)
        ok = [m for m in MARGINS if all(n >= alone[st] for st, n in served_by_store(dataclasses.replace(floor, margin=m), halves).items())]
        return max(ok) if ok else None

    folds = []
    for h in "ab":
        m = pick("b" if h == "a" else "a")
        folds.append({"held_out_half": h, "margin": m, "with_margin": figures(dataclasses.replace(floor, margin=m), h),
                      "floor_alone": figures(dataclasses.replace(floor, margin=None), h)})
    margin = pick("ab")

    # Floor.distinct, with that margin: for each family left out, the loosest threshold that adds at
    # most DISTINCT_ADDS of unrelated prompts injected on the other five; no real question is read.
    with_margin = dataclasses.replace(floor, margin=margin)
    injected = {d: flat.outcome(dataclasses.replace(with_margin, distinct=d))[0] for d in [None, *DISTINCTS]}

    def unrelated(d, keep) -> float:
        return sum(mean(injected[d][(fam == f) & (stores == st)]) for f in keep for st in store_names) / max(1, len(keep) * len(store_names))

    def loosest(keep) -> float | None:
        ok = [d for d in DISTINCTS if unrelated(d, keep) - unrelated(None, keep) <= DISTINCT_ADDS]
        return min(ok) if ok else None

    distinct_folds = []
    for f in fams:
        d = loosest([g for g in fams if g != f])
        fl = dataclasses.replace(with_margin, distinct=d)
        distinct_folds.append({"held_out_family": f, "distinct": d, "family_injected": round(unrelated(d, [f]), 4),
                               "without": round(unrelated(None, [f]), 4),
                               "real_served": {h: figures(fl, h)["real_served"] for h in "ab"},
                               "real_served_without": {h: figures(with_margin, h)["real_served"] for h in "ab"}})
    return {"margin_folds": folds, "margin_chosen_on_all": margin, "distinct_folds": distinct_folds, "distinct_chosen_on_all": loosest(fams)}


ABOUT_ME = [round(0.01 * i, 2) for i in range(11)]


def calibrate_about_me(rows: list[dict], floor: Floor) -> dict:
    """The about-me route's lowering (RecallConfig.floor_about_me), chosen on a person's chats with an
    assistant in halves (conversation parity): on the tuning half, the smallest value past which the
    share of its questions served stops rising; reported on the other half, with what every family
    of prompts about nobody gets. No family is read to choose it."""
    import numpy as np

    flat = Flat(rows)
    fam, stores = np.array([r["family"] for r in rows]), np.array([r["store"] for r in rows])
    half = np.array([half_of(r) for r in rows])
    chats = (fam == "real") & (stores == "chats")
    fams = sorted({f for f in fam if f != "real" and FRESH not in f})
    kinds = constrained(stores[fam == "real"])
    out = {d: flat.outcome(dataclasses.replace(floor, about_me=d)) for d in [None, *ABOUT_ME]}

    def served(d, h) -> float:
        return mean(out[d][1][chats & np.isin(half, list(h))])

    def pick(h) -> float:
        best = max(served(d, h) for d in ABOUT_ME)
        return min(d for d in ABOUT_ME if served(d, h) >= best)

    def families(d) -> dict:
        return {f: round(sum(mean(out[d][0][(fam == f) & (stores == st)]) for st in kinds) / max(1, len(kinds)), 4) for f in fams}

    folds = [{"held_out_half": h, "about_me": (d := pick("b" if h == "a" else "a")), "chats_served": round(served(d, h), 4),
              "without": round(served(None, h), 4)} for h in "ab"]
    chosen = pick("ab")
    return {"about_me_folds": folds, "about_me_chosen_on_all": chosen,
            "about_me_families": {"with": families(chosen), "without": families(None)}}


def check(rows: list[dict], fl: Floor) -> None:
    """The numpy arithmetic agrees with the product's admitted() on every row."""
    any_, serve = Flat(rows).outcome(fl)
    assert [outcome(r, fl)[0] for r in rows] == list(any_), "bench arithmetic and relevance.admitted disagree"
    assert [served(r, fl) for r in rows] == list(serve), "bench arithmetic and relevance.admitted disagree on what is served"


def report(rows: list[dict], floor: Floor) -> dict:
    """A fixed floor (the default) on every family and store: what a person would see. A family's
    share is the mean over the kinds of store (the ~3 000-memory one apart, as `big`); a small
    store's question is served when its memory is injected, counted where search ranked it."""
    out: dict = {"families": {}, "stores": {}}
    kinds = constrained(r["store"] for r in rows)
    injected = [outcome(r, floor)[0] for r in rows]

    def share(keep) -> float:
        per = [[injected[i] for i, r in enumerate(rows) if r["store"] == st and keep(r)] for st in kinds]
        per = [x for x in per if x]
        return round(sum(sum(x) / len(x) for x in per) / max(1, len(per)), 4)

    for f in sorted({r["family"] for r in rows} - {"real"}):
        out["families"][f] = {"all": share(lambda r: r["family"] == f), "en": share(lambda r: r["family"] == f and not r["cjk"]),
                              "zh": share(lambda r: r["family"] == f and r["cjk"]),
                              "big": rate(injected[i] for i, r in enumerate(rows) if r["store"] == "big" and r["family"] == f)}
    for st in sorted({r["store"] for r in rows}):
        un = [i for i, r in enumerate(rows) if r["store"] == st and r["family"] != "real"]
        re_ = [r for r in rows if r["store"] == st and r["family"] == "real" and any(it[3] for it in r["items"])]
        out["stores"][st] = {"unrelated_injected": rate(injected[i] for i in un),
                             "unrelated_injected_zh_prompts": rate(injected[i] for i in un if rows[i]["cjk"]),
                             "real_served": rate(served(r, floor) for r in re_),
                             "injected_evidence_recall_top10": rate(outcome(r, floor)[2] for r in re_)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--locomo-limit", type=int, default=0)
    ap.add_argument("--no-big", action="store_true", help="skip the ~3 000-memory store")
    ap.add_argument("--vectors", type=Path, default=None, help="keep vectors here across runs (a pickle outside the repo)")
    ap.add_argument("--features", type=Path, default=None, help="write the collected evidence here (JSON)")
    ap.add_argument("--from-features", type=Path, default=None, help="calibrate from evidence collected before")
    ap.add_argument("--fresh", type=Path, action="append",
                    help="a folder of families written after the floors were chosen (bench/prompts/fresh, fresh2; repeatable): "
                         "reported as NAME_FOLDER, never chosen on")
    ap.add_argument("--chats", type=Path, action="append", default=None,
                    help=f"a person's chats with an assistant, LoCoMo's format (repeatable; default {CHATS.name}): its questions are real ones the floors must serve")
    ap.add_argument("--chats-fresh", type=Path, action="append", default=None,
                    help="chats written after the floors were chosen (bench/prompts/assistant_chats2.json): reported, never chosen on")
    ap.add_argument("--smoke", action="store_true", help="made-up MADial and LoCoMo files (bench/synthetic.py), a few prompts and cases")
    args = ap.parse_args()
    if args.smoke:
        import synthetic

        tmp = Path(tempfile.mkdtemp(prefix="amber-smoke-"))
        madial_recall.DATA = synthetic.madial(tmp / "madial")
        locomo_recall.DEFAULT_DATA = synthetic.locomo(tmp / "locomo.json", conversations=2)
        args.chats = [synthetic.locomo(tmp / "chats.json", conversations=1)]
        args.no_big = True
    elif args.chats is None:
        args.chats = [CHATS]
    if args.from_features:
        rows = json.loads(args.from_features.read_text())
    else:
        embedder = build_embedder("local")
        store = cached_vectors(embedder, args.vectors)
        try:
            rows = collect(args, embedder)
        finally:
            if args.vectors:
                args.vectors.write_bytes(pickle.dumps(store))
        if args.features:
            args.features.write_text(json.dumps(rows))
    d = RecallConfig()
    default = Floor(d.floor_memory, d.floor_message, d.floor_lexical, d.floor_cjk_offset, d.floor_per_decade, d.floor_margin, d.floor_distinct,
                    about_me=d.floor_about_me)
    check(rows, default)
    alone = dataclasses.replace(default, margin=None, distinct=None)
    talk_off = dataclasses.replace(default, reads_talk=False)  # small talk weighed like any prompt (RecallConfig.floor_small_talk)
    result = {"bench": "abstention", "rows": len(rows), "default": report(rows, default), "floor_alone": report(rows, alone),
              "without_small_talk": report(rows, talk_off),
              "without_about_me": report(rows, dataclasses.replace(default, about_me=None)),
              **calibrate(rows), **calibrate_margin(rows, alone), **calibrate_about_me(rows, default)}
    for f in result["about_me_folds"]:
        print(f"about-me lowering {f['about_me']} chosen on the other half; half {f['held_out_half']}: chats served {f['chats_served']:.3f} "
              f"(without the route {f['without']:.3f})", flush=True)
    print(f"about-me chosen on all: {result['about_me_chosen_on_all']}; families with it {result['about_me_families']['with']}, "
          f"without {result['about_me_families']['without']}", flush=True)
    for f in result["margin_folds"]:
        print(f"margin {f['margin']} chosen on the other half; half {f['held_out_half']}: real served {f['with_margin']['real_served']:.3f} "
              f"(floor alone {f['floor_alone']['real_served']:.3f}), worst family {f['with_margin']['worst_family']} "
              f"(floor alone {f['floor_alone']['worst_family']})", flush=True)
    for f in result["distinct_folds"]:
        print(f"distinct {f['distinct']} chosen without {f['held_out_family']}: it gets {f['family_injected']:.3f} (without the route "
              f"{f['without']:.3f}); real served {f['real_served']} (without {f['real_served_without']})", flush=True)
    for f in result["folds"]:
        print(f"held out {f['held_out_family']:>9} / half {f['held_out_half']}: injected {f['family_injected']:.3f}  "
              f"real served {f['real_served']:.3f}  {f['by_store']}  floor {f['floor']}", flush=True)
    worst = max(result["folds"], key=lambda f: f["family_injected"])
    result["worst_held_out_family"] = {"family": worst["held_out_family"], "injected": worst["family_injected"]}
    result["worst_held_out_real_served"] = min(f["real_served"] for f in result["folds"])
    print(f"chosen on every family and both halves: {result['chosen_on_all']}")
    print(f"floors alone, each family held out: worst {worst['held_out_family']} {worst['family_injected']:.3f}; "
          f"worst held-out real served {result['worst_held_out_real_served']:.3f}")
    for f, v in result["default"]["families"].items():
        print(f"default floor, {f:>9}: {v}")
    for s, v in result["default"]["stores"].items():
        print(f"default floor, {s:>9}: {v}")
    for f, v in result["without_small_talk"]["families"].items():
        print(f"without small talk read, {f:>9}: {v}")
    for s, v in result["without_small_talk"]["stores"].items():
        print(f"without small talk read, {s:>9}: {v}")
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
