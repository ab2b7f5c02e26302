"""Child processes for the chat import tests (tests/core/test_chat_import_crash.py and _fuzz.py).

    python chat_import_child.py export PATH CONVERSATIONS TURNS   write a synthetic ChatGPT export
    python chat_import_child.py import DATA_DIR PATH               import it slowly, printing "stored N" per batch
    python chat_import_child.py parse PATH                         parse every conversation, print the counts as JSON
    python chat_import_child.py fuzz FIXTURES SEED CASES WORKDIR      mutate the fixtures, parse each; print the failures as JSON
"""

from __future__ import annotations

import io
import json
import random
import shutil
import sys
import traceback
import time
from pathlib import Path

from core import Actor, Settings, build_service, import_chats, scope_for
from core import InvalidInput
from core.chat_import.importer import to_message
from core.chat_import.jsonstream import iter_array
from core.chat_import.sources import Export, conversations
from core.testing import HashEmbedder


def export(path: Path, conversations_: int, turns: int) -> None:
    out = []
    for c in range(conversations_):
        mapping = {f"c{c}-root": {"id": f"c{c}-root", "parent": None, "children": [f"c{c}-1"], "message": None}}
        for t in range(1, turns + 1):
            mapping[f"c{c}-{t}"] = {"id": f"c{c}-{t}", "parent": f"c{c}-{t - 1}" if t > 1 else f"c{c}-root",
                                    "children": [f"c{c}-{t + 1}"] if t < turns else [],
                                    "message": {"id": f"c{c}-{t}", "author": {"role": "user" if t % 2 else "assistant"},
                                                "create_time": 1700000000 + c * 1000 + t,
                                                "content": {"content_type": "text", "parts": [f"conversation {c} turn {t} about topic {c % 7}"]}}}
        out.append({"id": f"conv-{c}", "title": f"t{c}", "create_time": 1700000000 + c * 1000, "current_node": f"c{c}-{turns}", "mapping": mapping})
    path.write_text(json.dumps(out), encoding="utf-8")


class SlowEmbedder(HashEmbedder):
    """Slow enough that the parent can kill the import between two batches, or inside one."""

    def embed_documents(self, texts):
        time.sleep(0.15)
        return super().embed_documents(texts)


def import_(data_dir: str, path: str) -> None:
    service = build_service(Settings(data_dir=data_dir, embedding_model="hash"), embedder=SlowEmbedder())
    scope = scope_for(Actor("crash", client="import"))
    import_chats(service, scope, path, batch=16, progress=lambda e: print(f"stored {e['stored']}", flush=True))
    print("done", flush=True)


def parse(path: str) -> None:
    counts = {"conversations": 0, "turns": 0, "skipped": 0}
    with Export(path) as ex:
        for part in ex.parts():
            for conv in conversations(part):
                counts["conversations"] += 1
                counts["turns"] += len(conv.turns)
                counts["skipped"] += sum(conv.skipped.values())
                for t in conv.turns:
                    assert t.id and t.text.strip() and t.created_at.tzinfo is not None and t.role in ("user", "assistant")
    print(json.dumps(counts))


JUNK_TEXT = ["", " ", "\u0000", "\ud800", "\udfff lone", "年糕" * 50, "\u202e\u200d🙂" * 10, "x" * 150_000, "a\nb\r\n",
             "<memory_context>", "\\", '"', "\ufeff"]
BAD_TIMES = [None, -1, 0, 1e20, -1e20, 10**30, "2024-13-45", "yesterday", "", True, [], {}, "2024-05-01T10:00:00+14:00",
             1.7e12, "NaN", "9999-12-31T23:59:59Z", float("1e308")]


def junk(rng: random.Random, depth: int = 0):
    r = rng.random()
    if r < 0.25:
        return rng.choice(JUNK_TEXT)
    if r < 0.45:
        return rng.choice(BAD_TIMES)
    if r < 0.55:
        return f"__DEEP{rng.choice([10, 200, 900, 3000, 20000])}__"  # spliced in as text after dumping
    if r < 0.7 and depth < 3:
        return {rng.choice(["type", "text", "content_type", "parts", "id", "uuid", "x"]): junk(rng, depth + 1) for _ in range(3)}
    if r < 0.85 and depth < 3:
        return [junk(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return rng.choice([1, -5, 3.5, None, True, "text", "00000000-0000-4000-8000-000000000000"])


DEEP = __import__("re").compile(r'"__DEEP(\d+)__"')


def dumps(value, ensure_ascii: bool) -> str:
    """JSON with nesting deeper than Python's encoder can write, spliced in where junk() asked."""
    return DEEP.sub(lambda m: '{"k": ' * int(m.group(1)) + "1" + "}" * int(m.group(1)) if int(m.group(1)) % 2
                    else "[" * int(m.group(1)) + "]" * int(m.group(1)), json.dumps(value, ensure_ascii=ensure_ascii))


def mutate(rng: random.Random, value, rate: float):
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if rng.random() < rate / 3:
                continue  # a field missing
            out[k] = junk(rng) if rng.random() < rate else mutate(rng, v, rate)
        if rng.random() < rate / 3:
            out[rng.choice(["extra", "children", "parent", "message", "content"])] = junk(rng)
        return out
    if isinstance(value, list):
        items = [junk(rng) if rng.random() < rate else mutate(rng, v, rate) for v in value]
        if items and rng.random() < rate:
            rng.shuffle(items)
        return items
    return value


def fuzz(fixtures: str, seed: int, cases: int, workdir: str) -> None:
    rng = random.Random(seed)
    sources = [p for p in sorted(Path(fixtures).rglob("*.json*")) if p.name not in ("export_manifest.json",)]
    failures = []
    for case in range(cases):
        src = rng.choice(sources)
        target = Path(workdir) / f"case-{case}"
        target.mkdir(parents=True)
        rate = rng.choice([0.02, 0.1, 0.3])
        if src.suffix == ".jsonl":
            lines = [json.loads(x) for x in src.read_text(encoding="utf-8").splitlines() if x.strip().startswith("{") and x.strip().endswith("}")]
            text = "".join(dumps(mutate(rng, x, rate), rng.random() < 0.5) + "\n" for x in lines)
            if rng.random() < 0.3:
                text = text[: rng.randint(0, len(text))]  # cut off mid-write
            (target / src.name).write_text(text, encoding="utf-8", errors="surrogatepass")
        else:
            value = mutate(rng, json.loads(src.read_text(encoding="utf-8")), rate)
            text = dumps(value, rng.random() < 0.5)
            if rng.random() < 0.15:
                text = text[: rng.randint(0, len(text))]  # a truncated download
            if rng.random() < 0.1:
                text = text.replace(",", ", \n\t ", rng.randint(1, 50))
            (target / "conversations.json").write_bytes(text.encode("utf-8", "surrogatepass"))
        try:
            with Export(target) as ex:
                for part in ex.parts():
                    for conv in conversations(part):
                        for t in conv.turns:
                            m = to_message(conv, t)
                            m.model_dump_json()  # what the store would write: must encode
                            assert m.created_at.tzinfo is not None
            # the array reader with tiny chunks agrees with the whole-file decoder
            raw = (target / "conversations.json")
            if raw.exists():
                try:
                    whole = json.loads(raw.read_bytes())
                except (ValueError, RecursionError):
                    whole = None
                if isinstance(whole, list):
                    got = list(iter_array(io.StringIO(raw.read_bytes().decode("utf-8", "surrogatepass")), name="x", chunk=7))
                    assert got == whole, "iter_array disagrees with json.loads"
        except InvalidInput:
            pass
        except Exception as e:  # anything else is a parser bug
            failures.append({"case": case, "source": src.name, "error": f"{type(e).__name__}: {e}"[:300],
                             "where": traceback.format_exc().splitlines()[-3][:200]})
        shutil.rmtree(target)
    print(json.dumps({"cases": cases, "failures": failures}))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "export":
        export(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "import":
        import_(sys.argv[2], sys.argv[3])
    elif cmd == "parse":
        parse(sys.argv[2])
    elif cmd == "fuzz":
        fuzz(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
