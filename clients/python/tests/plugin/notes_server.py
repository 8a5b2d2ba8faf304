"""A small plugin tool, as a plugin author writes one: an MCP server (stdio) whose tool reads its
call's _meta, writes and reads records through the Python client, and answers a fitted result.

Run: python notes_server.py (the test drives it with an MCP client over stdio).
"""

import json
from typing import Literal, Optional

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent

from custodian import fit
from custodian.records import Records, RecordsError

View = Literal["stub", "summary", "section", "full"]

server = MCPServer("notes")


@server.tool()
def save_page(
    path: str,
    text: str,
    ctx: Context,
    view: Optional[View] = None,
    budget: Optional[int] = None,
    query: Optional[str] = None,
) -> CallToolResult:
    """Keeps a page as a record of the tenant, reads it back, and answers it fitted to the budget."""
    records = Records.from_meta(dict(ctx.request_context.meta or {}))
    try:
        written = records.put("tenant", f"pages/{path}", {"text": text}, expect=0, kind="page")
        again = records.put("tenant", f"pages/{path}", {"text": text, "seen": True}, expect=written["version"])
        stale = None
        try:
            records.put("tenant", f"pages/{path}", {"text": "lost"}, expect=1)
        except RecordsError as e:
            stale = {"code": e.code, "fields": e.fields, "status": e.status}
        page = records.get("tenant", f"pages/{path}")["record"]
        history = records.history("tenant", f"pages/{path}")["records"]
    except RecordsError as e:
        return CallToolResult(content=[TextContent(type="text", text=e.message)], is_error=True)
    body = page["body"]["text"]
    if not fit.wanted(view, budget, query):
        answer = {"content": body}
        meta = {}
    else:
        f = fit.fit_document(body, view=view or "", budget=budget or 0, query=query or "", head=path, name=path)
        answer = {"content": f.text, "fit": f.meta()}
        meta = {fit.META_KEY: f.meta()}
    answer["versions"] = [r["version"] for r in history]
    answer["written"] = again["version"]
    answer["stale"] = stale
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(answer))], structured_content=answer, _meta=meta)


if __name__ == "__main__":
    server.run()
