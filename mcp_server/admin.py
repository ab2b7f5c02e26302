"""The admin page: one static HTML file plus its scripts and stylesheet, served at /admin.

The page holds no data: it is the same bytes for everyone, and everything it shows comes from the
REST API with the key the person pastes. So these routes are public (see http_auth.PUBLIC), and
their only job is to be hard to abuse: a strict Content-Security-Policy (scripts only from this
origin, no inline script, no framing), no sniffing, no referrer. Every URL in the page is relative,
so it works wherever the app is mounted (/admin alone, /memory/admin inside the LiteLLM proxy).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import APIRouter
from starlette.responses import RedirectResponse, Response

STATIC = Path(__file__).with_name("static")
JS = "text/javascript; charset=utf-8"
# the page's script in files of one concern each: the toolkit first, then the views
SCRIPTS = ("admin-kit.js", "admin.js", "admin-today.js", "admin-jobs.js", "admin-messages.js", "admin-care.js", "admin-forget.js",
           "admin-import.js", "admin-recalls.js")
ASSETS = {**{name: JS for name in SCRIPTS}, "admin.css": "text/css; charset=utf-8"}
PATHS = ("/admin", "/admin/", *(f"/admin/{name}" for name in ASSETS))

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

router = APIRouter(include_in_schema=False)


@cache
def _read(name: str) -> bytes:
    return (STATIC / name).read_bytes()


@router.get("/admin")
async def admin_page() -> Response:
    return Response(_read("admin.html"), media_type="text/html; charset=utf-8", headers=HEADERS)


@router.get("/admin/")
async def admin_slash() -> Response:
    # relative, so the redirect stays under whatever prefix the app is mounted at
    return RedirectResponse("../admin", status_code=308)


@router.get("/admin/{name}")
async def admin_asset(name: str) -> Response:
    media = ASSETS.get(name)
    if media is None:
        return Response("not found", status_code=404, media_type="text/plain", headers=HEADERS)
    return Response(_read(name), media_type=media, headers=HEADERS)
