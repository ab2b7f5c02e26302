"""How Amber's MCP face answers where the protocol, not a tool, decides: failing calls, unknown tools,
and which tools a key is shown.

Failing calls (MCP 2025-11-25, "Error Handling"; SEP-1303):
- a call that reached a tool and failed (Amber refused it, the memory is missing, the store is down) and
  arguments that break the tool's input schema are *tool execution errors*: `isError: true` with one
  text block, `<tool>: <what is wrong>; <what to do>`, which the model reads and can act on (correct the
  argument, look the id up again, answer without memory);
- an unknown tool name is a *protocol error*: JSON-RPC -32602 (invalid params), as is a request whose
  `arguments` is no object (the SDK refuses that one before any tool runs).

An error result carries no `structuredContent`. Each tool declares an output schema for its result, and
clients validate `structuredContent` against it (the MCP Inspector does, and then shows only the schema
complaint instead of Amber's message). Declaring the error shape in every output schema (a union of
result and error) would make each tool's contract harder to read for models and for clients that turn
schemas into types, to describe a case `isError` already marks. So the text is what a person or model
reads, and Amber's error body, `{"error": code, "detail", "field"}` as on REST, travels in the result's
`_meta` under `amber/error`, where programs (`tests/contract/mcp_port.py`, `core.errors.error_class`)
read the code back and no schema applies.

Listing: a key is shown only the tools its scopes allow (read tools need memory:read, the others
memory:write; an admin key has both). A call to a tool the key is not shown still reaches the tool,
which refuses it with Amber's own reason (`key 'x' lacks scope memory:write`) as a tool error; a
forget preview, which only reads, stays open to a read-only key that calls it by name.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp import MCPError
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent
from pydantic import ValidationError

from core import READ, WRITE, AmberError, InvalidInput

from .errors import error_body
from .identity import current_identity

log = logging.getLogger("amber.mcp")
ERROR_META = "amber/error"

# what to do, by Amber's error code, after what is wrong
NEXT_STEP = {
    "invalid_input": "correct that argument and call again",
    "not_found": "find the id again with memory_search or memory_list",
    "forbidden": "this key may not do that; the person can use a key with that scope (see `amber keys create`)",
    "unauthenticated": "the person needs to configure a valid Amber API key",
    "immutable": "precious quotes can only be forgotten (memory_forget)",
}


class AmberToolError(ToolError):
    """A tool's anticipated failure: the text the model reads, and the Amber error it stands for
    (its code and field travel in the answer's `_meta`)."""

    def __init__(self, error: AmberError, text: str | None = None):
        super().__init__(text or str(error))
        self.error = error


def short_validation(e: ValidationError) -> str:
    """Pydantic's report without its input echo and documentation links: `field: reason`, three at most."""
    parts = [f"{'.'.join(str(p) for p in err.get('loc', ())) or 'arguments'}: {err.get('msg', 'invalid')}" for err in e.errors()[:3]]
    more = len(e.errors()) - 3
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def validation_field(e: ValidationError) -> str:
    first = e.errors()[0] if e.errors() else {}
    return ".".join(str(p) for p in first.get("loc", ())) or "arguments"


def error_text(tool: str, reason: str, code: str) -> str:
    """`<tool>: <what is wrong>; <what to do>`: one shape for every failing call."""
    step = NEXT_STEP.get(code)
    return f"{tool}: {reason}" + (f"; {step}" if step and step not in reason else "")


def error_result(tool: str, error: AmberError, reason: str | None = None) -> CallToolResult:
    field = error.field if isinstance(error, InvalidInput) else None
    text = error_text(tool, reason or str(error), error.code)
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True,
                          _meta={ERROR_META: error_body(error.code, str(error), field)})


def answer_errors(mcp: MCPServer) -> None:
    """Anticipated failures answer as tool errors (above); an unknown tool as JSON-RPC -32602. Called
    directly (`mcp.call_tool(...)`, no context) a failure raises `ToolError` with the same text, as
    `MCPServer.call_tool` documents. Crashes stay the SDK's to answer ("Error executing tool")."""
    call_tool, list_tools = mcp.call_tool, mcp.list_tools
    known: set[str] = set()  # the tools registered (all of them, whoever asks), read once

    async def checked(name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if not known:
            known.update(t.name for t in await list_tools())
        if name not in known:
            if context is None:
                raise ToolError(f"Unknown tool: {name}")
            raise MCPError(code=INVALID_PARAMS, message=f"Amber has no tool {name!r}; tools/list names the tools this key may call",
                           data={"tool": name})
        try:
            return await call_tool(name, arguments, context)
        except ToolError as e:
            cause = e.__cause__
            if isinstance(e, UnexpectedToolError) or not isinstance(cause, (AmberToolError, ValidationError)):
                raise
            if isinstance(cause, ValidationError):
                reason = short_validation(cause)
                error: AmberError = InvalidInput(validation_field(cause), reason)
            else:
                reason, error = str(cause), cause.error
            if context is None:
                raise ToolError(error_text(name, reason, error.code)) from cause
            log.info("tool %s failed: %s", name, error.code)
            return error_result(name, error, reason)

    mcp.call_tool = checked  # type: ignore[method-assign]


def list_by_scope(mcp: MCPServer) -> None:
    """tools/list shows a key only the tools its scopes allow (read tools: memory:read; the rest:
    memory:write). Without an identity (in-process use) every tool is listed."""
    list_tools = mcp.list_tools

    async def allowed() -> Any:
        tools = await list_tools()
        identity = current_identity.get()
        if identity is None:
            return tools
        return [t for t in tools if identity.allows(READ if t.annotations and t.annotations.read_only_hint else WRITE)]

    mcp.list_tools = allowed  # type: ignore[method-assign]
