"""Memory and Message <-> Chroma metadata.

Chroma metadata holds scalars only, and `upsert` merges keys. So each record keeps its full,
lossless JSON under `record`, plus flat copies of the fields we filter on, always all present.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ..model import Memory, Message

NO_TIME = 0.0  # filter value for "no expiry"


def _ts(dt: datetime | None) -> float:
    return dt.timestamp() if dt else NO_TIME


def memory_metadata(m: Memory) -> dict[str, Any]:
    return {
        "record": m.model_dump_json(),
        "status": m.status.value,
        "namespace": m.namespace,
        "kind": m.kind.value,
        "category": m.category.value if m.category else "",
        "fact_key": m.fact_key or "",
        "content_hash": m.content_hash,
        "pinned": m.pinned,
        "importance": m.importance,
        "expire_at": _ts(m.expire_at),
        "updated_at": _ts(m.updated_at),
        "created_at": _ts(m.created_at),
        "title": (m.title or "").casefold(),
    }


def memory_from(meta: dict[str, Any]) -> Memory:
    return Memory.model_validate_json(meta["record"])


def message_metadata(m: Message) -> dict[str, Any]:
    return {
        "record": m.model_dump_json(),
        "role": m.role.value,
        "session": m.session or "",
        "client": m.client or "",
        "ts": m.created_at.timestamp(),
    }


def message_from(meta: dict[str, Any]) -> Message:
    return Message.model_validate_json(meta["record"])


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, default=str)
