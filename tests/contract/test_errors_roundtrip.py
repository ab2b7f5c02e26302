"""Every class of Amber's error tree travels server → client as itself: the memory server answers
with the code and status the class carries, and RemoteMemory raises that same class again."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from core import AmberError, InvalidInput, RemoteMemory
from core.errors import error_class
from mcp_server.errors import HANDLERS
from tests.kit.servers import serve_app


def tree(cls: type[AmberError] = AmberError) -> list[type[AmberError]]:
    return [cls, *(c for sub in cls.__subclasses__() for c in tree(sub))]


CLASSES = {c.__name__: c for c in tree()}


def raise_(name: str) -> None:
    cls = CLASSES[name]
    raise InvalidInput("importance", "must be between 0 and 1") if cls is InvalidInput else cls(f"a {name} on purpose")


@pytest.fixture(scope="module")
def raising_host():
    """An app with the memory server's error handlers whose /v1/memories/{name} raises the class named."""
    app = FastAPI()
    for exc, handler in HANDLERS.items():
        app.add_exception_handler(exc, handler)

    @app.get("/v1/memories/{name}")
    async def get(name: str) -> dict:
        raise_(name)
        return {}

    with serve_app(app) as url:
        yield url


def test_codes_are_unique_and_name_their_class():
    assert len({c.code for c in CLASSES.values() if "code" in vars(c)}) == len([c for c in CLASSES.values() if "code" in vars(c)])
    for cls in CLASSES.values():
        assert error_class(cls.code) is cls or "code" not in vars(cls), cls
        assert 400 <= cls.status < 600


@pytest.mark.parametrize("name", sorted(CLASSES))
async def test_error_class_round_trips(raising_host, name):
    cls = CLASSES[name]
    r = httpx.get(f"{raising_host}/v1/memories/{name}")
    assert r.status_code == cls.status and r.json()["error"] == cls.code
    async with RemoteMemory(raising_host) as remote:
        with pytest.raises(AmberError) as e:
            await remote.get(name)
    assert type(e.value) is cls
    if cls is InvalidInput:
        assert e.value.field == "importance"
