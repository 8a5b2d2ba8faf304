"""The records clients against a running service. CUSTODIAN_TEST_SERVICE holds {meta, url,
agent_key} (test/e2e/clients/clients-records.e2e.test.ts starts the service and sets it)."""

import json
import os

import pytest

from custodian.records import AgentRecords, Records, RecordsError

SERVICE = json.loads(os.environ["CUSTODIAN_TEST_SERVICE"]) if os.environ.get("CUSTODIAN_TEST_SERVICE") else None
pytestmark = pytest.mark.skipif(SERVICE is None, reason="CUSTODIAN_TEST_SERVICE is not set: run through test/e2e/clients")


@pytest.fixture(scope="module")
def records():
    return Records.from_meta(SERVICE["meta"])


def test_put_get_history_with_every_field(records):
    v1 = records.put("tenant", "py/one", {"n": 1}, expect=0, kind="decision", state="draft", dedupe="the first", subject_kind="work", closed=False)
    assert {k: v1[k] for k in ("version", "scope", "key")} == {"version": 1, "scope": "tenant", "key": "py/one"}
    assert isinstance(v1["job_purpose"], str)
    v2 = records.put("tenant", "py/one", {"n": 2}, expect=1, state="active", supersedes="py/zero", ends_at=v1.get("ends_at"))
    assert v2["version"] == 2
    record = records.get("tenant", "py/one")["record"]
    assert {k: record[k] for k in ("version", "body", "state", "supersedes", "kind", "closed", "writable")} == {
        "version": 2,
        "body": {"n": 2},
        "state": "active",
        "supersedes": "py/zero",
        "kind": "note",
        "closed": False,
        "writable": True,
    }
    assert records.get("tenant", "py/one", version=1)["record"]["kind"] == "decision"
    assert "record" not in records.get("tenant", "py/none")
    assert [r["version"] for r in records.history("tenant", "py/one")["records"]] == [2, 1]
    fitted = records.history("tenant", "py/one", view="stub", budget=100)
    assert fitted["fit"]["view"] == "stub"


def test_refusals_raise_one_exception_with_code_fields_and_message(records):
    with pytest.raises(RecordsError) as stale:
        records.put("tenant", "py/one", {"n": 3}, expect=1)
    assert (stale.value.status, stale.value.code, stale.value.fields["current"]) == (409, "stale", 2)
    with pytest.raises(RecordsError) as invalid:
        records.put("tenant", "bad key!", {})
    assert invalid.value.code == "invalid" and invalid.value.fields["field"] == "record_key"
    with pytest.raises(RecordsError) as scope:
        records.put("agent:someone-else", "k", {}, expect=0)
    assert scope.value.code == "scope" and str(scope.value) == scope.value.message


@pytest.mark.parametrize("value", [[1, 2], "ab", 3, None])
def test_a_value_that_is_not_an_object_raises_records_error_before_sending(records, value):
    with pytest.raises(RecordsError) as plugin:
        records.put("tenant", "py/not-an-object", value, expect=0)
    assert (plugin.value.status, plugin.value.code, plugin.value.fields) == (0, "invalid", {"field": "body"})
    agent = AgentRecords(SERVICE["url"], SERVICE["agent_key"], {"notes": {}})
    with pytest.raises(RecordsError) as agents:
        agent.put("notes", "n", value)
    assert (agents.value.status, agents.value.code, agents.value.fields) == (0, "invalid", {"field": "value"})


def test_list_pages_through_cursor(records):
    for i in range(3):
        records.put("tenant", f"py/list/{i}", {"i": i}, expect=0)
    page = records.list(scopes=["tenant"], prefix="py/list/", limit=2, order="key")
    assert [r["key"] for r in page["records"]] == ["py/list/0", "py/list/1"] and page["more"] is True
    assert [r["key"] for r in records.list_all(scopes=["tenant"], prefix="py/list/", limit=2)] == ["py/list/0", "py/list/1", "py/list/2"]


def test_results_offload_and_read(records):
    assert records.results.offload("py.tool", "short") == {"inline": True}
    big = {f"part{i}": "Part of a long result. " * 200 for i in range(40)}
    stub = records.results.offload("py.tool", big)
    assert stub["offloaded"]["kind"] == "json"
    part = records.results.read_result(stub["offloaded"]["ref"], section="part3", budget=2000)
    assert "part3" in part["content"] and part["fit"]["view"] in ("section", "summary", "stub")


def test_files_between_tools(records):
    stored = records.files.put(b"\x00bytes between tools\xff")
    assert stored["ref"].startswith("oz0-file:sha256:") and stored["size"] == 21
    assert records.files.get(stored["ref"]) == b"\x00bytes between tools\xff"
    with pytest.raises(RecordsError) as missing:
        records.files.get("oz0-file:sha256:" + "0" * 64)
    assert (missing.value.status, missing.value.code) == (404, "not_found")


def test_agent_records_over_http():
    agent = AgentRecords(SERVICE["url"], SERVICE["agent_key"], {"questions": {"people": ["asker"], "fields": ["status"]}, "notes": {}})
    assert agent.collections == ["questions", "notes"]
    created = agent.put("questions", "q1", {"asker": "phone:+15550100100", "status": "open", "text": "When?"})
    assert set(created) == {"id", "createdAt", "updatedAt"}
    agent.put("questions", "q2", {"asker": "bob", "status": "open"})
    agent.put("questions", "q3", {"asker": "carol", "status": "closed"})
    assert agent.get("questions", "q1")["text"] == "When?"
    assert agent.get("questions", "nothing") is None
    first = agent.query("questions", {"status": "open"}, limit=1)
    assert [e["id"] for e in first] == ["q1"]
    assert [e["id"] for e in agent.query("questions", {"status": "open"}, limit=1, after=first[-1])] == ["q2"]
    assert [e["id"] for e in agent.query_all("questions", limit=2)] == ["q1", "q2", "q3"]
    assert agent.declared() == ["questions", "notes"]
    assert agent.delete("questions", "q3") is True and agent.delete("questions", "q3") is False
    assert agent.forget_person("+15550100100") == 1
    assert [r["id"] for r in agent.export()] == ["q2"]
    with pytest.raises(RecordsError) as refused:
        agent.query("questions", {"text": "When?"})
    assert refused.value.message.startswith("records: ") and refused.value.status == 400


def test_an_unknown_op_names_the_ops_there_are(records):
    with pytest.raises(RecordsError) as refused:
        records.call("zap")
    assert refused.value.code == "invalid" and refused.value.fields["field"] == "op"
    assert refused.value.message == 'op is text: send one of "put", "get", "history", "list"'


def test_an_undeclared_collection_is_declared_the_python_way():
    agent = AgentRecords(SERVICE["url"], SERVICE["agent_key"], {"questions": {}})
    with pytest.raises(RecordsError) as refused:
        agent.get("answers", "a1")
    assert (refused.value.status, refused.value.code) == (404, "not_found")
    assert refused.value.message.startswith("records: no collection named answers: declare it in AgentRecords(url, key, collections=")
    assert "createRecords" not in refused.value.message
