"""Custodian's records APIs for plugin tools written in Python. Standard library only.

A plugin tool's call carries ``_meta``; ``Records.from_meta(meta)`` reaches the records API, the
results offloading and the files of that call's job tree with the call's ticket:

    records = Records.from_meta(meta)
    records.put("notes", "n1", {"text": "hello"})
    records.get("notes", "n1")["record"]["body"]

An agent runtime holding an agent key uses ``AgentRecords(url, key, collections)`` for the agent
records API (``put``, ``get``, ``query`` with paging, ``delete``, ``forget_person``, ``export``).

Every refusal raises ``RecordsError``, carrying the HTTP status, the refusal's ``code`` (``stale``,
``scope``, ``invalid`` …), its other ``fields`` (``current``, ``field``, ``reason`` …) and a
``message`` that says what to change.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence

__all__ = ["Records", "AgentRecords", "RecordsError", "RECORDS_META_KEY", "IDEMPOTENCY_META_KEY"]

RECORDS_META_KEY = "oz0/records"
IDEMPOTENCY_META_KEY = "oz0/idempotency_key"
_TIMEOUT = 30.0


class RecordsError(Exception):
    """A refusal of the service (or a call that could not reach it): status, code, fields, message."""

    def __init__(self, status: int, code: str, fields: "Dict[str, Any]", message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.fields = fields
        self.message = message

    def __repr__(self) -> str:
        return f"RecordsError(status={self.status}, code={self.code!r}, fields={self.fields!r}, message={self.message!r})"


def _message(status: int, body: "Dict[str, Any]") -> str:
    if isinstance(body.get("message"), str):
        return body["message"]
    code = body.get("error")
    details = ", ".join(f"{k}: {v}" for k, v in body.items() if k not in ("error", "job_purpose", "message"))
    return f"records: the service answered {status}{' ' + code if isinstance(code, str) else ''}{' (' + details + ')' if details else ''}: check the request"


class _Http:
    def __init__(self, base: str, token: str) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def send(self, method: str, path: str, body: Optional[bytes] = None, content_type: Optional[str] = None) -> "tuple[int, bytes, str]":
        # Names this client, so a refusal that says what to call next names a call of this package.
        headers = {"authorization": f"Bearer {self.token}", "x-custodian-client": "python"}
        if content_type:
            headers["content-type"] = content_type
        req = urllib.request.Request(self.base + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=_TIMEOUT) as res:
                return res.status, res.read(), res.headers.get("content-type", "")
        except urllib.error.HTTPError as e:
            return e.code, e.read(), e.headers.get("content-type", "") if e.headers else ""
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise RecordsError(0, "unreachable", {}, f"records: the service at {self.base} could not be reached ({reason}): start it, or give the right url") from None

    def json(self, method: str, path: str, payload: Any = None, ok404: bool = False) -> "Dict[str, Any]":
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        status, raw, _ = self.send(method, path, data, "application/json" if data is not None else None)
        return self.answer(status, raw, ok404)

    @staticmethod
    def answer(status: int, raw: bytes, ok404: bool = False) -> "Dict[str, Any]":
        try:
            body = json.loads(raw.decode("utf-8")) if raw else {}
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {"value": body}
        if status >= 400:
            # An absent record (`what: record`; older services sent no message), never a missing route.
            if ok404 and status == 404 and body.get("error") == "not_found" and (body.get("what") == "record" or "message" not in body):
                return body
            code = body.get("error") if isinstance(body.get("error"), str) else "http_" + str(status)
            fields = {k: v for k, v in body.items() if k not in ("error", "message")}
            raise RecordsError(status, code, fields, _message(status, body))
        return body


def _fitting(view: Optional[str], budget: Optional[int], query: Optional[str]) -> "Dict[str, Any]":
    out: "Dict[str, Any]" = {}
    if view is not None:
        out["view"] = view
    if budget is not None:
        out["budget"] = budget
    if query is not None:
        out["query"] = query
    return out


_UNSET: Any = object()


class Records:
    """The records API, results offloading and files of one call, from its ticket."""

    def __init__(self, url: str, ticket: str, agent: Optional[str] = None, idempotency_key: Optional[str] = None) -> None:
        self.url = url.rstrip("/")
        self.ticket = ticket
        self.agent = agent
        self.idempotency_key = idempotency_key
        base = self.url[: -len("/v1/records")] if self.url.endswith("/v1/records") else self.url
        self._http = _Http(base, ticket)

    @classmethod
    def from_meta(cls, meta: "Mapping[str, Any]") -> "Records":
        """A client from a tool call's ``_meta`` (its ``oz0/records`` entry: url, ticket, agent)."""
        entry = (meta or {}).get(RECORDS_META_KEY)
        if not isinstance(entry, Mapping) or not isinstance(entry.get("url"), str) or not isinstance(entry.get("ticket"), str):
            raise RecordsError(0, "no_records", {}, f"records: the call's _meta has no {RECORDS_META_KEY} entry with a url and a ticket: call the tool through the runtime")
        key = meta.get(IDEMPOTENCY_META_KEY)
        return cls(entry["url"], entry["ticket"], entry.get("agent"), key if isinstance(key, str) else None)

    # -- the records API ------------------------------------------------------------------

    def call(self, op: str, **fields: Any) -> "Dict[str, Any]":
        """Any op of the records API, its fields as given (None fields are left out)."""
        body = {"op": op, **{k: v for k, v in fields.items() if v is not None}}
        return self._http.json("POST", "/v1/records", body)

    def put(
        self,
        scope: str,
        record_key: str,
        body: "Mapping[str, Any]",
        expect: Optional[int] = None,
        kind: Optional[str] = None,
        state: Optional[str] = None,
        dedupe: Optional[str] = None,
        supersedes: Optional[str] = None,
        ends_at: Optional[int] = None,
        subject_kind: Optional[str] = None,
        closed: Optional[bool] = None,
    ) -> "Dict[str, Any]":
        """Writes a version: ``{version, scope, key, job_purpose}``."""
        if not isinstance(body, Mapping):
            raise RecordsError(0, "invalid", {"field": "body"}, "records: body is not a JSON object: put a dict")
        return self.call(
            "put",
            scope=scope,
            record_key=record_key,
            body=dict(body),
            expect=expect,
            kind=kind,
            state=state,
            dedupe=dedupe,
            supersedes=supersedes,
            ends_at=ends_at,
            subject_kind=subject_kind,
            closed=closed,
        )

    def get(self, scope: str, record_key: str, version: int = 0) -> "Dict[str, Any]":
        """``{"record": {...}}``, or no ``record`` when there is none the call may read."""
        return self.call("get", scope=scope, record_key=record_key, version=version)

    def history(self, scope: str, record_key: str, view: Optional[str] = None, budget: Optional[int] = None, query: Optional[str] = None) -> "Dict[str, Any]":
        """``{"records": [...]}`` newest first (fitted with ``fit`` when a view, budget or query is given)."""
        return self.call("history", scope=scope, record_key=record_key, **_fitting(view, budget, query))

    def list(
        self,
        scopes: Optional[Sequence[str]] = None,
        kinds: Optional[Sequence[str]] = None,
        states: Optional[Sequence[str]] = None,
        prefix: Optional[str] = None,
        since: Optional[int] = None,
        ended: Optional[bool] = None,
        deleted: Optional[bool] = None,
        after: Optional[str] = None,
        limit: Optional[int] = None,
        order: Optional[str] = None,
        cursor: Optional[str] = None,
        dedupe: Optional[str] = None,
        newest_in: Optional[bool] = None,
        view: Optional[str] = None,
        budget: Optional[int] = None,
        query: Optional[str] = None,
    ) -> "Dict[str, Any]":
        """``{records, withheld, next, more}``: the newest version of each record that matches."""
        spec = {
            "scopes": list(scopes) if scopes is not None else None,
            "kinds": list(kinds) if kinds is not None else None,
            "states": list(states) if states is not None else None,
            "prefix": prefix,
            "since": since,
            "ended": ended,
            "deleted": deleted,
            "after": after,
            "limit": limit,
            "order": order,
            "cursor": cursor,
            "dedupe": dedupe,
            "newest_in": newest_in,
        }
        return self.call("list", list={k: v for k, v in spec.items() if v is not None}, **_fitting(view, budget, query))

    def list_all(self, **filters: Any) -> "Iterator[Dict[str, Any]]":
        """Every record ``list`` finds, page after page (its ``next`` cursor)."""
        cursor = filters.pop("cursor", None)
        while True:
            page = self.list(cursor=cursor, **filters)
            yield from page.get("records", [])
            cursor = page.get("next")
            if not page.get("more") or not cursor:
                return

    # -- results and files ----------------------------------------------------------------

    def offload(self, tool: str, content: Any) -> "Dict[str, Any]":
        """``{"inline": true}`` when the result is within the job's threshold, else the stub
        ``{offloaded: {ref, kind, size, tokens, lines}, outline, note}``."""
        return self._http.json("POST", "/v1/results", {"tool": tool, "content": content})

    def read_result(
        self,
        ref: str,
        view: Optional[str] = None,
        section: Optional[str] = None,
        range: Optional[str] = None,
        query: Optional[str] = None,
        budget: Optional[int] = None,
    ) -> "Dict[str, Any]":
        """A part of an offloaded result, fitted, with its fit note."""
        body = {"ref": ref, "view": view, "section": section, "range": range, "query": query, "budget": budget}
        return self._http.json("POST", "/v1/results/read", {k: v for k, v in body.items() if v is not None})

    def put_file(self, data: bytes) -> "Dict[str, Any]":
        """Stores bytes as a file of the job tree: ``{ref, size}``."""
        status, raw, _ = self._http.send("PUT", "/v1/files", bytes(data), "application/octet-stream")
        return _Http.answer(status, raw)

    def get_file(self, ref: str) -> bytes:
        """The bytes of a file the job tree stored (or was handed)."""
        status, raw, _ = self._http.send("GET", "/v1/files/" + urllib.parse.quote(ref, safe=":"))
        if status >= 400:
            _Http.answer(status, raw)
        return raw

    @property
    def results(self) -> "Records":
        """``records.results.offload(...)`` / ``records.results.read_result(...)`` read as well."""
        return self

    @property
    def files(self) -> "_Files":
        """``records.files.put(data)`` / ``records.files.get(ref)``."""
        return _Files(self)


class _Files:
    def __init__(self, records: Records) -> None:
        self._records = records

    def put(self, data: bytes) -> "Dict[str, Any]":
        return self._records.put_file(data)

    def get(self, ref: str) -> bytes:
        return self._records.get_file(ref)


class AgentRecords:
    """The agent records API with an agent key: small JSON documents in declared collections."""

    def __init__(self, url: str, key: str, collections: "Mapping[str, Mapping[str, Sequence[str]]]") -> None:
        self._http = _Http(url, key)
        self._declaration = {name: {"people": list(c.get("people", ())), "fields": list(c.get("fields", ()))} for name, c in collections.items()}
        self.collections: "List[str]" = list(self._declaration)
        self._declared = False

    def _ready(self) -> None:
        if not self._declared:
            self._http.json("PUT", "/v1/agent/collections", {"collections": self._declaration})
            self._declared = True

    @staticmethod
    def _path(collection: str, record_id: Optional[str] = None) -> str:
        path = "/v1/agent/records/" + urllib.parse.quote(collection, safe="")
        return path if record_id is None else path + "/" + urllib.parse.quote(record_id, safe="")

    def put(self, collection: str, record_id: str, value: "Mapping[str, Any]", started_ms: Optional[int] = None) -> "Dict[str, Any]":
        """Replaces the whole value: ``{id, createdAt, updatedAt}``."""
        if not isinstance(value, Mapping):
            raise RecordsError(0, "invalid", {"field": "value"}, "records: value is not a JSON object: put a dict")
        body: "Dict[str, Any]" = {"value": dict(value)}
        if started_ms is not None:
            body["started_ms"] = started_ms
        self._ready()
        return self._http.json("PUT", self._path(collection, record_id), body)

    def get(self, collection: str, record_id: str) -> "Optional[Dict[str, Any]]":
        """The value, or None when there is no such record."""
        self._ready()
        answer = self._http.json("GET", self._path(collection, record_id), ok404=True)
        return answer.get("value") if "value" in answer else None

    def query(
        self,
        collection: str,
        where: "Optional[Mapping[str, Any]]" = None,
        limit: Optional[int] = None,
        after: "Optional[Mapping[str, Any]]" = None,
        view: Optional[str] = None,
        budget: Optional[int] = None,
        query: Optional[str] = None,
    ) -> "Any":
        """One page of entries ``[{id, value, createdAt, updatedAt}]``, oldest first; ``after`` is
        the previous page's last entry. With a view, budget or query: the fitted answer
        ``{entries, fit, more, next}``."""
        body: "Dict[str, Any]" = {"where": dict(where or {})}
        if limit is not None:
            body["limit"] = limit
        if after is not None:
            body["after"] = {"createdAt": after["createdAt"], "id": after["id"]}
        fitting = _fitting(view, budget, query)
        self._ready()
        answer = self._http.json("POST", self._path(collection) + "/query", {**body, **fitting})
        return answer if fitting else answer.get("entries", [])

    def query_all(self, collection: str, where: "Optional[Mapping[str, Any]]" = None, limit: int = 100) -> "Iterator[Dict[str, Any]]":
        """Every entry that matches, page after page."""
        after = None
        while True:
            page = self.query(collection, where, limit=limit, after=after)
            yield from page
            if len(page) < limit:
                return
            after = page[-1]

    def delete(self, collection: str, record_id: str) -> bool:
        self._ready()
        return self._http.json("DELETE", self._path(collection, record_id)).get("deleted") is True

    def forget_person(self, person: str, also: Sequence[str] = ()) -> int:
        """Deletes every record naming ``person`` (or a name in ``also``) in a people field: how many."""
        self._ready()
        return int(self._http.json("POST", "/v1/agent/forget", {"person": person, "also": list(also)}).get("deleted", 0))

    def declared(self) -> "List[str]":
        """The collections the service holds for this agent, in the order declared."""
        self._ready()
        return list(self._http.json("GET", "/v1/agent/collections").get("collections", []))

    def export(self) -> "Iterator[Dict[str, Any]]":
        """Every record of the agent as ``{collection, id, value, createdAt, updatedAt}``, oldest first."""
        self._ready()
        status, raw, _ = self._http.send("GET", "/v1/agent/export")
        if status >= 400:
            _Http.answer(status, raw)
        for line in raw.decode("utf-8").split("\n"):
            if line.strip():
                yield json.loads(line)
