"""Fit and measure the pair model (core/correction_pair.py): the person's turn read against each
shown item, beside the correction rules.

    .venv/bin/python bench/correction_pair_fit.py            # held-out figures, weights unchanged (~3 min)
    .venv/bin/python bench/correction_pair_fit.py --write    # then fit on everything, write core/correction_pair.json

Fitted on: the correction corpora already read while the rules were written (tune, fresh, fresh2-5,
fresh7, review3), the training corpus helpers wrote for it (bench/corrections_train/*.jsonl), and
real chat turns as negatives: every turn of LoCoMo's conversations and MADial's dialogues, with the
speaker's three nearest memories shown (LoCoMo's observations from earlier sessions, MADial's
memory bank; read from ../shared/eval, never copied here). Never fitted on: the tune split's
held-out third and the sets nobody here read (fresh6, fresh8, fresh9, fresh10, fresh11, fresh12).

The real turns are split in halves (LoCoMo conversations 1-3 / 4-5, MADial's dialogues odd / even):
each half is held out once, the model fitted on the rest, its thresholds chosen by leaving each
training group out in turn (`rescue`: 0.3 % of the training real turns' best pair above it;
`veto`: 2 % of the corrections the rules found below it), and measured on the held-out half and the
unread sets. `--write` then chooses the thresholds the same way on everything. Last line JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "core"))

import corrections as C  # noqa: E402
from corrections import second  # noqa: E402  (the sentence arm's model, cached by text)
import madial_recall  # noqa: E402  (its dialogue lines and memory bank, read alike)
from correction_model_fit import fit as logistic  # noqa: E402
from core.changed import told  # noqa: E402
from core.correcting import reading  # noqa: E402
from core.correction import might_correct  # noqa: E402
from core.correction_model import WEIGHTS as TURN_WEIGHTS, _load  # noqa: E402
from core.correction_pair import WEIGHTS, features  # noqa: E402
from core.recall.config import RecallConfig  # noqa: E402
from core.recall.query import dense_query  # noqa: E402
from core.update import stated  # noqa: E402
from correction_phrasings import Case  # noqa: E402

READ = ("tune", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh7", "review3")  # read while the rules were written
UNREAD = ("held_out", "fresh6", "fresh8", "fresh9", "fresh10", "fresh11", "fresh12")
TO_QUERY = "correction_pair_map.npy"
VETO_KEEP, RESCUE_RATE, ALIKE_RATE, REAL_WEIGHT = 0.02, 0.003, 0.01, 0.5
LAM = float(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1][0] == "0" else 0.01
EVAL = HERE.parent.parent / "shared" / "eval"
RECALL = RecallConfig()


def real_turns(root: Path) -> dict[str, list[tuple[str, list[str], str]]]:
    """Chat turns by the person, with the memories that could be shown beside them, in halves."""
    out: dict[str, list] = {f"real_{k}_{h}": [] for k in ("locomo", "madial") for h in "ab"}
    for ci, conv in enumerate(json.loads((root / "locomo" / "locomo_dev.json").read_text(encoding="utf-8"))):
        c, obs, seen, k = conv["conversation"], conv["observation"], {}, 1
        while f"session_{k}" in c:
            for turn in c[f"session_{k}"]:
                if seen.get(turn["speaker"]):
                    out[f"real_locomo_{'a' if ci < 3 else 'b'}"].append((turn["text"], list(seen[turn["speaker"]]), "en"))
            for who, said in obs.get(f"session_{k}_observation", {}).items():
                seen.setdefault(who, []).extend(o[0] for o in said)
            k += 1
    for lang in ("en", "zh"):
        bank = [v["event"] for v in madial_recall.load_memories(root / "madial" / f"{lang}-memory.jsonl").values()]
        for di, line in enumerate((root / "madial" / f"{lang}-dialogue-dev.jsonl").open(encoding="utf-8")):
            for s in json.loads(line)["dialogue"]:
                m = madial_recall.LINE_RE.match(s.strip())
                if m and m.group(1) not in ("Assistant", "BOD", "EOD", "AI") and not m.group(1).startswith("助"):
                    out[f"real_madial_{'a' if di % 2 == 0 else 'b'}"].append((m.group(2), bank, lang))
    return out


class Vectors:
    def __init__(self) -> None:
        self.engine, self.got = C.local_engine(), {}
        if self.engine is None:
            raise SystemExit("the local embedder's model is needed (make .venv/.installed)")

    def __call__(self, texts: list[str], query: bool = True) -> np.ndarray:
        """Query vectors (a turn, as recall embeds it) or passage vectors (a memory, as the store holds it)."""
        from core.embed.text import prepare

        need = sorted({t for t in texts if (query, t) not in self.got})
        for i in range(0, len(need), 64):
            for t, v in zip(need[i:i + 64], self.engine.encode([prepare(x) for x in need[i:i + 64]], query)):
                self.got[query, t] = np.asarray(v, dtype=np.float64)
        return np.asarray([self.got[query, t] for t in texts])


def load_groups(vec: Vectors, real: bool = True) -> dict[str, list[Case]]:
    groups = {name: [c for cs in C.cases_of(name) for c in cs] for name in READ + UNREAD}  # a fresh set's ordinary turns with its look-alikes
    for path in sorted((HERE / "corrections_train").glob("*.jsonl")):
        rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
        groups[f"train_{path.stem}"] = [Case(text=r["text"], shown=tuple(r["shown"]), target=r["target"], lang=r["lang"], split="train")
                                        for r in rows]
    if real and (EVAL / "locomo").is_dir():
        for name, turns in real_turns(EVAL).items():
            turns = [t for t in turns if t[0].strip() and len(t[0]) <= 600]
            q, bank = vec([t for t, _, _ in turns]), {}
            for _, ms, _ in turns:
                for m in ms:
                    bank.setdefault(m, None)
            bv = dict(zip(bank, vec(list(bank), False)))
            groups[name] = [Case(text=t, shown=tuple(sorted(ms, key=lambda m: -float(q[i] @ bv[m]))[:3]), target=None, lang=lang, split="real")
                            for i, (t, ms, lang) in enumerate(turns)]
    return groups


def to_query_map(groups: dict[str, list[Case]], vec: Vectors, lam: float = 0.01) -> np.ndarray:
    """A linear map from a memory's stored (passage) vector to its query vector, by ridge regression
    over the training groups' memory texts (the unread sets' are left out)."""
    texts = sorted({s for n, cs in groups.items() if n in READ or n.startswith(("train_", "real")) for c in cs for s in c.shown})
    P, Q = vec(texts, False), vec(texts, True)
    W = np.linalg.solve(P.T @ P + lam * np.eye(P.shape[1]), P.T @ Q)
    return W.astype(np.float16).astype(np.float64)  # as it ships (core/correction_pair_map.npy)


def mapped(P: np.ndarray, W: np.ndarray | None) -> np.ndarray:
    if W is None:
        return P
    M = P @ W
    return M / np.maximum(np.linalg.norm(M, axis=1, keepdims=True), 1e-12)


def rows_of(groups: dict[str, list[Case]], vec: Vectors, W: np.ndarray | None = None) -> dict[str, list[tuple]]:
    """Per case: its pair rows, labels, and the rules' choice (an item index or None)."""
    turn_model = _load(str(TURN_WEIGHTS))
    out = {}
    for name, cases in groups.items():
        made = []
        texts = [C.text_of(c, C.items(c)) for c in cases]
        tv = vec([dense_query(t, RECALL.context_turns, RECALL.query_max_chars) for t in texts])  # what the hot path embeds
        for c, text, t in zip(cases, texts, tv):
            shown = C.items(c)
            score = turn_model.score(t) if turn_model is not None else None
            r = reading(text, shown, might_correct(text), stated(text), told(text), score, turn_model)
            rows = features(text, shown, t, mapped(vec([s.text for s in shown], False), W), r, second([text, *(s.text for s in shown)]))
            rule = None if r.settled is None else next(i for i, s in enumerate(shown) if s.id == r.settled.target.id)
            made.append((rows, c.target, rule))
        out[name] = made
    return out


def fit(groups: list[list[tuple]], weights: list[float], lam: float = LAM) -> tuple[np.ndarray, float]:
    """The groups' pair rows, each weighing its group's weight, fitted as the turn classifier is."""
    X = np.vstack([rows for g in groups for rows, _, _ in g])
    y = np.concatenate([[float(i == target) for i in range(len(rows))] for g in groups for rows, target, _ in g])
    sw = np.concatenate([[w] * len(rows) for g, w in zip(groups, weights) for rows, _, _ in g])
    return logistic(X, y, lam, sw, steps=30, tol=1e-8)


def scored(model: tuple[np.ndarray, float], group: list[tuple]) -> list[tuple]:
    w, b = model
    return [(1.0 / (1.0 + np.exp(-np.clip(rows @ w + b, -60, 60))), target, rule) for rows, target, rule in group]


def acts(p: np.ndarray, rule: int | None, veto: float, rescue: float) -> int | None:
    if rule is not None:
        return rule if p[rule] >= veto else None
    best = int(np.argmax(p))
    return best if p[best] >= rescue else None


def tally(sc: list[tuple], veto: float = 0.0, rescue: float = 2.0) -> dict:
    out = {"corrections": 0, "found": 0, "look_alikes": 0, "taken": 0}
    for p, target, rule in sc:
        a = acts(p, rule, veto, rescue)
        if target is None:
            out["look_alikes"] += 1
            out["taken"] += a is not None
        else:
            out["corrections"] += 1
            out["found"] += a == target
    return out


def choose(rows: dict[str, list[tuple]], train: list[str]) -> tuple[float, float]:
    """The thresholds from each training group scored by a model fitted without it."""
    cv = {n: scored(fit([rows[m] for m in train if m != n], [weight(m) for m in train if m != n]), rows[n]) for n in train}
    real = sorted((float(p.max()) for n in train if n.startswith("real") for p, t, rule in cv[n] if rule is None), reverse=True)
    alike = sorted((float(p.max()) for n in train if not n.startswith("real") for p, t, rule in cv[n] if rule is None and t is None), reverse=True)
    kept = sorted(float(p[rule]) for n in train if not n.startswith("real") for p, t, rule in cv[n] if rule is not None and rule == t)
    veto, rescue = kept[int(VETO_KEEP * len(kept))], max(real[int(RESCUE_RATE * len(real))], alike[int(ALIKE_RATE * len(alike))])
    cur = [tally(cv[n], veto, rescue) for n in train if not n.startswith("real")]
    for n in train:
        r, w = tally(cv[n]), tally(cv[n], veto, rescue)
        print(f"    {n:16s} rules: found {r['found']}/{r['corrections']}, taken {r['taken']}/{r['look_alikes']}  | with the pair model "
              f"(fitted without it): found {w['found']}/{w['corrections']}, taken {w['taken']}/{w['look_alikes']}")
    print(f"  cross-validated on the training corpora: found {sum(x['found'] for x in cur)}/{sum(x['corrections'] for x in cur)}, "
          f"taken {sum(x['taken'] for x in cur)}/{sum(x['look_alikes'] for x in cur)} (veto {veto:.3f}, rescue {rescue:.3f})")
    return veto, rescue


def weight(name: str) -> float:
    return REAL_WEIGHT if name.startswith("real") else 1.0


def cost(turns: int) -> dict:
    """What the pair model adds to a turn on the hot path, on a real store with the local embedder: a
    person with the corpora's memories, a block recalled, then the next turn's correction and recall
    (as the hook runs them), with the pair model and without it, in turns, each from a cold embedding
    cache (so the turn's embedding is in the figure, paid by the correction where the model runs).
    Milliseconds, p50 and p95 of each, and of the difference per turn."""
    import asyncio
    import tempfile
    import time

    import core.correcting as correcting
    from core import WRITE, AsyncMemory, Identity, LocalMemory, MemoryIn, build_service
    from core import READ as MAY_READ
    from core.config import Settings
    from core.embed import sentence

    memories = sorted({s for name in READ for cs in C.cases_of(name) for c in cs for s in c.shown})
    said = [c.text for name in ("fresh9", "fresh10") for c in C.PLAIN[name]][:turns]
    with tempfile.TemporaryDirectory() as tmp:
        service = build_service(Settings(data_dir=Path(tmp), embedding_model="local"))
        port = LocalMemory(AsyncMemory(service), Identity("bench", "ann", frozenset({MAY_READ, WRITE})))
        real_pair = correcting.pair_model_for
        took: dict[str, list[float]] = {"with": [], "without": []}
        acted = {"with": 0, "without": 0}  # ordinary turns taken for a correction (each then writes)

        async def run() -> None:
            for m in memories:
                await port.remember(MemoryIn(content=m))
            for i, text in enumerate(said):
                block = said[i - 1]  # the turn before: its block is what this one follows
                for way in (("with", "without") if i % 2 else ("without", "with")):
                    await port.recall(block, why=f"r{i}-{way}")
                    service.embedder._cache.clear()  # cold: this turn's vector is embedded in the timing
                    sentence.shared().recent.clear()  # and read by the sentence model
                    correcting.pair_model_for = real_pair if way == "with" else (lambda e: None)
                    at = time.perf_counter()
                    acted[way] += await correcting.correct_in_turn(port, text) is not None
                    await port.recall(text)
                    took[way].append((time.perf_counter() - at) * 1000)
            correcting.pair_model_for = real_pair

        try:
            asyncio.run(run())
        finally:
            correcting.pair_model_for = real_pair
            service.close()
    pct = lambda xs, q: round(float(np.percentile(xs, q)), 2)  # noqa: E731
    diff = [a - b for a, b in zip(took["with"], took["without"])]
    return {"memories": len(memories), "turns": len(took["with"]), "acted": acted, **{f"{w}_p{q}": pct(took[w], q) for w in took for q in (50, 95)},
            "added_p50": pct(diff, 50), "added_p95": pct(diff, 95)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help="fit on every training group and write core/correction_pair.json")
    ap.add_argument("--cost", type=int, default=0, metavar="TURNS", help="only measure what the model adds to a turn on the hot path")
    ap.add_argument("--stored", action="store_true", help="read each memory's stored vector as it is (not adopted), not mapped to its query vector")
    ap.add_argument("--smoke", action="store_true", help="40 cases of a few groups, no real turns (fresh2's look-alikes stand in), nothing written")
    a, _ = ap.parse_known_args()
    if a.cost:
        got = cost(a.cost)
        print(f"correction and recall of {got['turns']} ordinary turns after a block, {got['memories']} memories stored: "
              f"with the pair model p50 {got['with_p50']} ms, p95 {got['with_p95']} ms; without p50 {got['without_p50']} ms, "
              f"p95 {got['without_p95']} ms; added p50 {got['added_p50']} ms, p95 {got['added_p95']} ms")
        print(json.dumps({"cost": got}))
        return
    vec = Vectors()
    groups = load_groups(vec, real=not a.smoke)
    if a.smoke:
        alike = C.cases_of(C.FRESH2)[1]
        groups = {n: groups[n][:40] for n in ("tune", "fresh", "held_out", *(g for g in groups if g.startswith("train_")))}
        groups |= {"real_smoke_a": alike[::2], "real_smoke_b": alike[1::2]}
        a.write = False
    W = None if a.stored else to_query_map(groups, vec)
    rows = rows_of(groups, vec, W)
    base = [n for n in rows if n in READ or n.startswith("train_")]
    result: dict = {"halves": {}}
    for half, other in (("a", "b"), ("b", "a")):
        train = base + [n for n in rows if n.startswith("real") and n.endswith(half)]
        veto, rescue = choose(rows, train)
        model = fit([rows[n] for n in train], [weight(n) for n in train])
        figures = {}
        for n in [*(u for u in UNREAD if u in rows), *(m for m in rows if m.startswith("real") and m.endswith(other))]:
            sc = scored(model, rows[n])
            figures[n] = {"rules": tally(sc), "with_pair": tally(sc, veto, rescue)}
            r, w = figures[n]["rules"], figures[n]["with_pair"]
            print(f"real half {half} fitted, {n:16s} rules: found {r['found']}/{r['corrections']}, taken {r['taken']}/{r['look_alikes']}"
                  f"  | with the pair model: found {w['found']}/{w['corrections']}, taken {w['taken']}/{w['look_alikes']}")
        result["halves"][half] = {"veto": round(veto, 4), "rescue": round(rescue, 4), "sets": figures}
    if a.write:
        train = base + [n for n in rows if n.startswith("real")]
        veto, rescue = choose(rows, train)
        w, b = fit([rows[n] for n in train], [weight(n) for n in train])
        if W is not None:
            np.save(WEIGHTS.with_name(TO_QUERY), W.astype(np.float16))
        WEIGHTS.write_text(json.dumps({"embedder": C.LOCAL_EMBEDDER, "weights": [round(float(x), 6) for x in w], "bias": round(b, 6),
                                       "veto": round(veto, 4), "rescue": round(rescue, 4), "to_query": TO_QUERY if W is not None else None,
                                       "groups": train}) + "\n", encoding="utf-8")
        result["written"] = {"veto": round(veto, 4), "rescue": round(rescue, 4), "groups": train}
        print(f"wrote {WEIGHTS}: veto {veto:.3f}, rescue {rescue:.3f}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
