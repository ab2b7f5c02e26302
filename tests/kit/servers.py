"""Real servers for tests, on 127.0.0.1 and free ports: an ASGI app under uvicorn in a thread, and
`chroma run` as a subprocess. Shared by every test area so each starts them the same way."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import httpx
import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve_app(app, host: str = "127.0.0.1", **config) -> Iterator[str]:
    """Run an ASGI app under uvicorn in a thread on a free port; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, **{"log_level": "warning", "lifespan": "on", **config}))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def answers(url: str, timeout: float = 2.0) -> bool:
    """Whether `url` answers 200 now."""
    try:
        return httpx.get(url, timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def wait_answering(url: str, proc: subprocess.Popen, *, what: str, timeout: float, log: Callable[[], str] = lambda: "") -> None:
    """Until `url` answers 200; RuntimeError (with the tail of `log()`) if `proc` exits or time runs out."""
    deadline = time.monotonic() + timeout
    while not answers(url):
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}:\n{log()[-4000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not answer {url} within {timeout}s:\n{log()[-4000:]}")
        time.sleep(0.2)


def stop_process(proc: subprocess.Popen, timeout: float = 20.0) -> None:
    """SIGTERM, and SIGKILL if it has not exited within `timeout`."""
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def start_all(*starts: Callable[[], object]) -> None:
    """Call each start function in its own thread (hosts and proxies take seconds each); raise the first failure."""
    errors: list[BaseException] = []

    def run(fn: Callable[[], object]) -> None:
        try:
            fn()
        except BaseException as e:  # re-raised below once every start has finished
            errors.append(e)

    threads = [threading.Thread(target=run, args=(fn,)) for fn in starts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


@contextlib.contextmanager
def chroma_server(path: Path) -> Iterator[str]:
    """`chroma run` on a free port over `path`; yields its URL once its heartbeat answers."""
    port = free_port()
    exe = shutil.which("chroma", path=str(Path(sys.executable).parent))
    proc = subprocess.Popen([exe, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_answering(f"{url}/api/v2/heartbeat", proc, what="chroma run", timeout=30)
        yield url
    finally:
        stop_process(proc)
