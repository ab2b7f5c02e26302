"""What provenance costs in the injected block: tokens added per item by the handle and by a
memory's origin ("user said" / "assistant said"), and once per block by the preamble's sentences.

    .venv/bin/python bench/provenance.py [--items 200] [--seed 7]

Renders the same synthetic items (memories and turns, English and Chinese, with and without a
client) twice: as Amber renders them now, and without the handle (the line format before handles:
date, speaker or kind, client, quoted text). Counted three ways: Amber's own estimate (what the
budget uses), OpenAI's cl100k_base and Anthropic's tokenizer (both files ship with LiteLLM, read
offline). Reports per item: tokens added by the handle (mean, max) and the mean line before and after
(before: no handle, no origin); per memory that carries an origin: tokens its "user said" / "assistant
said" adds; per block: the preamble's added tokens. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from core.recall.fusion import Candidate  # noqa: E402
from core.recall.render import PREAMBLE, _escape, estimate_tokens, render_item, speaker  # noqa: E402

# the preamble before issue 30: no sentence about handles, and only turn lines' speakers explained
OLD_PREAMBLE = PREAMBLE.rsplit(" #handles", 1)[0].replace(' and "assistant said"', "")

EN = ["I moved to Hangzhou last spring", "My sister is called Lin", "I am allergic to shellfish and peanuts",
      "Prefers oat milk in coffee", "Works as a backend engineer at a logistics startup",
      "We talked about the hiking trip to the Yellow Mountains in October",
      "Sure, here is a summary of your training plan: three runs a week, one long run on Sunday."]
ZH = ["我去年春天搬到了杭州", "我妹妹叫林", "我对花生过敏", "喜欢在咖啡里加燕麦奶", "我在一家物流创业公司做后端工程师",
      "我们聊过十月去黄山徒步的计划"]


def unsaid(c: Candidate) -> Candidate:
    return replace(c, tags=())


def old_item(c: Candidate) -> str:
    return f"- [{c.created_at:%Y-%m-%d}] ({speaker(unsaid(c))}) {_escape(c.text)}"


def items(n: int, seed: int) -> list[Candidate]:
    rnd = random.Random(seed)
    base = datetime(2026, 3, 4, tzinfo=timezone.utc)
    out = []
    for i in range(n):
        source = rnd.choice(["memory", "memory", "message"])
        kind = rnd.choice(["fact", "event", "precious"]) if source == "memory" else rnd.choice(["user", "assistant"])
        text = rnd.choice(ZH if rnd.random() < 0.4 else EN)
        # extracted memories carry whose words they hold; most are the person's own
        said = rnd.choice([("said:user",), ("said:user",), ("said:assistant",), ()]) if source == "memory" else ()
        out.append(Candidate(id=f"{source}-{seed}-{i}-{rnd.getrandbits(64):x}", text=text, source=source,
                             created_at=base - timedelta(days=rnd.randint(0, 900)), kind=kind,
                             client=rnd.choice([None, "owui", "claude-code", "chatbox"]), tags=said))
    return out


def counters() -> dict:
    found = {"estimate": estimate_tokens}
    tok_dir = None
    try:
        import litellm.litellm_core_utils.tokenizers as t

        tok_dir = Path(t.__file__).parent
    except Exception:
        pass
    if tok_dir is not None:
        try:
            os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(tok_dir))
            import tiktoken

            enc = tiktoken.get_encoding("cl100k_base")
            found["cl100k"] = lambda s: len(enc.encode(s))
        except Exception as e:
            print(f"cl100k_base not available offline: {type(e).__name__}", file=sys.stderr)
        try:
            from tokenizers import Tokenizer

            anth = Tokenizer.from_file(str(tok_dir / "anthropic_tokenizer.json"))
            found["anthropic"] = lambda s: len(anth.encode(s).ids)
        except Exception as e:
            print(f"anthropic tokenizer not available: {type(e).__name__}", file=sys.stderr)
    return found


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    cands = items(a.items, a.seed)
    result: dict = {"items": len(cands)}
    for name, count in counters().items():
        added = [count(render_item(c)) - count(old_item(c)) for c in cands]
        before = sum(count(old_item(c)) for c in cands) / len(cands)
        after = sum(count(render_item(c)) for c in cands) / len(cands)
        said = [count(render_item(c)) - count(render_item(unsaid(c))) for c in cands if c.tags]
        result[name] = {"per_item_added_mean": round(sum(added) / len(added), 2), "per_item_added_max": max(added),
                        "origin_added_mean": round(sum(said) / max(1, len(said)), 2), "origin_added_max": max(said, default=0),
                        "items_with_origin": len(said),
                        "line_before": round(before, 1), "line_after": round(after, 1),
                        "per_item_added_pct": round(100 * (after - before) / before, 1),
                        "preamble_added": count(PREAMBLE) - count(OLD_PREAMBLE)}
        r = result[name]
        print(f"{name:10s} +{r['per_item_added_mean']} tokens per item (max {r['per_item_added_max']}, "
              f"line {r['line_before']} -> {r['line_after']}, +{r['per_item_added_pct']}%), of which a memory's origin "
              f"+{r['origin_added_mean']} (max {r['origin_added_max']}, on {r['items_with_origin']} items), preamble +{r['preamble_added']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
