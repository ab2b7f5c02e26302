"""SyncMemory: the memory port for code that runs no event loop (a script, a notebook, a cron job).

It is not a second declaration of the port. Its methods are made from `core.ports.MemoryPort` when
this module loads, one per declared operation, with the declared signature and docstring. Each one
runs the wrapped async port's coroutine on a private event loop in one background thread and
waits for it. So the sync form cannot drift from the async one: an operation added to the port is
here too. Errors are the port's own `core.errors` classes, raised in the caller's thread.

    with SyncMemory.connect("http://127.0.0.1:8765", api_key=key) as memory:
        memory.remember(MemoryIn(content="I live in Shanghai", fact_key="profile.city"))
        print(memory.recall("where do I live?").text)

Any object with the port's coroutine methods can be wrapped: `RemoteMemory` (what `connect` builds),
or an in-process port in a host. One `SyncMemory` may be shared by threads; calls run one at a time
on its loop, each waiting at most `timeout_s`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import threading
from collections.abc import Iterator
from typing import Any, Callable

from .client import RemoteMemory
from .errors import Timeout
from .ports import MemoryPort

_DONE = object()


class SyncMemory:
    def __init__(self, port: Any, *, timeout_s: float | None = 60.0):
        self.port = port
        self.timeout_s = timeout_s
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="amber-sync", daemon=True)
        self._thread.start()
        self._closed = False

    @classmethod
    def connect(cls, base_url: str, api_key: str | None = None, user: str | None = None, *, timeout_s: float = 60.0,
                **client: Any) -> "SyncMemory":
        """A blocking client of a running Amber host (`base_url`: one URL, or several separated by
        commas); `user` is for trusted-client or admin keys acting for someone; other keywords go
        to `RemoteMemory`."""
        return cls(RemoteMemory(base_url, api_key=api_key, user=user, **client), timeout_s=timeout_s)

    def _run(self, make: Callable[[], Any]) -> Any:
        """Run the coroutine `make()` builds on this object's loop and wait for its result."""
        if self._closed:
            raise RuntimeError("this SyncMemory is closed")

        async def job() -> Any:
            return await make()

        fut = asyncio.run_coroutine_threadsafe(job(), self._loop)
        try:
            return fut.result(self.timeout_s)
        except concurrent.futures.TimeoutError:
            fut.cancel()
            raise Timeout(f"memory call took longer than {self.timeout_s} s") from None

    @property
    def closed(self) -> bool:
        """Closed, and its loop thread stopped."""
        return self._closed and not self._thread.is_alive()

    def close(self) -> None:
        """Close the wrapped port (its HTTP connections) and stop the loop thread. Idempotent."""
        if self._closed:
            return
        try:
            closer = getattr(self.port, "aclose", None)
            if closer is not None:
                self._run(closer)
        finally:
            self._closed = True
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            if not self._thread.is_alive():
                self._loop.close()

    def __enter__(self) -> "SyncMemory":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _blocking(name: str) -> Callable[..., Any]:
    def call(self: SyncMemory, *args: Any, **kwargs: Any) -> Any:
        return self._run(lambda: getattr(self.port, name)(*args, **kwargs))

    return call


def _iterating(name: str) -> Callable[..., Any]:
    """For an operation that streams (export): a plain iterator, one item fetched per step, so a
    large export is never held in memory whole."""

    def call(self: SyncMemory, *args: Any, **kwargs: Any) -> Iterator[Any]:
        stream = getattr(self.port, name)(*args, **kwargs)

        async def step() -> Any:
            try:
                return await stream.__anext__()
            except StopAsyncIteration:
                return _DONE

        try:
            while (item := self._run(step)) is not _DONE:
                yield item
        finally:
            if not self._closed:
                self._run(stream.aclose)

    return call


def operations(port: type = MemoryPort) -> dict[str, Callable[..., Any]]:
    """The port's declared operations by name."""
    return {n: v for n, v in vars(port).items() if inspect.isfunction(v) and not n.startswith("_")}


def _install() -> None:
    for name, declared in operations().items():
        sig = inspect.signature(declared)
        if inspect.iscoroutinefunction(declared):
            method = _blocking(name)
        else:  # declared as returning an async iterator: here a plain one
            method = _iterating(name)
            sig = sig.replace(return_annotation="Iterator[dict[str, Any]]")
        method.__name__, method.__qualname__, method.__doc__ = name, f"SyncMemory.{name}", declared.__doc__
        method.__signature__ = sig  # type: ignore[attr-defined]
        setattr(SyncMemory, name, method)


_install()
