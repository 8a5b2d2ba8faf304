"""Credentials for a schemathesis run against Custodian (loaded with SCHEMATHESIS_HOOKS).

Admin and auditor routes get the admin key; the records, files and results routes a call
ticket, the agent records API an agent key. Tickets and agent keys are minted through the
admin API as the run goes: again whenever one is refused (401) or has made all its requests
(429), since the run itself may end jobs, revoke keys or change the fuzz tenant.
"""

import json
import os
import urllib.error
import urllib.request
import uuid

import schemathesis

URL = os.environ["CUSTODIAN_URL"]
ADMIN_KEY = os.environ["CUSTODIAN_ADMIN_KEY"]
TENANT = "fuzz-owner"
PLUGIN = "fuzzplugin"


def _admin(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    headers = {"authorization": f"Bearer {ADMIN_KEY}"}
    if data is not None:
        headers["content-type"] = "application/json"
    req = urllib.request.Request(URL + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, json.loads(res.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def _expect(answer, *statuses):
    status, body = answer
    if status not in statuses:
        raise RuntimeError(f"setting up credentials: answered {status} {body}")
    return body


def _tenant_with_plugin():
    _expect(_admin("POST", "/v1/tenants", {"id": TENANT}), 201, 409)
    _expect(
        _admin(
            "POST",
            f"/v1/tenants/{TENANT}/plugins",
            {"name": PLUGIN, "scopes": ["agent", "project", "tenant"], "functions": ["tool"], "agents": ["scribe"]},
        ),
        200,
        201,
    )


def _ticket():
    _tenant_with_plugin()
    job = f"fuzz-{uuid.uuid4().hex[:12]}"
    _expect(
        _admin("POST", f"/v1/tenants/{TENANT}/jobs", {"id": job, "agent": "scribe", "plugin": PLUGIN, "subject": "user:fuzz"}),
        200,
        201,
    )
    call = _expect(_admin("POST", f"/v1/tenants/{TENANT}/jobs/{job}/calls", {"function": "tool"}), 201)
    return call["_meta"]["oz0/records"]["ticket"]


def _agent_key():
    _tenant_with_plugin()
    return _expect(_admin("POST", f"/v1/tenants/{TENANT}/agent-keys", {"agent": f"{PLUGIN}/scribe"}), 201)["key"]


def _bearer(case, token):
    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}


@schemathesis.auth(retry_on=[401, 429]).apply_to(path_regex=r"^/v1/(records|files|results)")
class Ticket:
    def get(self, case, ctx):
        return _ticket()

    def set(self, case, data, ctx):
        _bearer(case, data)


@schemathesis.auth(retry_on=[401]).apply_to(path_regex=r"^/v1/agent/")
class AgentKey:
    def get(self, case, ctx):
        return _agent_key()

    def set(self, case, data, ctx):
        _bearer(case, data)


@schemathesis.auth(refresh_interval=None, retry_on=[]).skip_for(path_regex=r"^/v1/(records|files|results|agent/)")
class Admin:
    def get(self, case, ctx):
        return ADMIN_KEY

    def set(self, case, data, ctx):
        _bearer(case, data)


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):
    """An import body (JSON Lines): text as it was generated, anything else one JSON line."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf8")
    return (json.dumps(value) + "\n").encode("utf8")
