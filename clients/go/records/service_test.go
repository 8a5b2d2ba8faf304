package records

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// Against a running service: CUSTODIAN_TEST_META holds a freshly minted call's _meta (the
// TypeScript e2e test test/e2e/clients/go-records.e2e.test.ts starts the service and sets it).
func TestAgainstService(t *testing.T) {
	raw := os.Getenv("CUSTODIAN_TEST_META")
	if raw == "" {
		t.Skip("CUSTODIAN_TEST_META is not set: run through test/e2e/clients/go-records.e2e.test.ts")
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(raw), &meta); err != nil {
		t.Fatal(err)
	}
	c, err := FromMeta(meta)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := c.Put("tenant", "go/one", map[string]any{"n": 1}, map[string]any{"expect": 0, "kind": "decision"})
	if err != nil || v1["version"] != float64(1) {
		t.Fatalf("put: %v %v", v1, err)
	}
	if _, err := c.Put("tenant", "go/one", map[string]any{"n": 2}, map[string]any{"expect": 0}); err == nil {
		t.Fatal("a stale put was accepted")
	} else {
		var re *Error
		if !errors.As(err, &re) || re.Status != 409 || re.Code != "stale" || re.Fields["current"] != float64(1) {
			t.Fatalf("stale refusal: %#v", err)
		}
	}
	if _, err := c.Put("tenant", "bad key!", map[string]any{}, nil); err == nil {
		t.Fatal("a bad key was accepted")
	} else if re := err.(*Error); re.Code != "invalid" || re.Fields["field"] == nil {
		t.Fatalf("invalid refusal: %#v", re)
	}
	if _, err := c.Call("zap", nil); err == nil {
		t.Fatal("an unknown op was accepted")
	} else if re := err.(*Error); re.Code != "invalid" || re.Message != `op is text: send one of "put", "get", "history", "list"` {
		t.Fatalf("an unknown op must name the ops there are: %#v", re)
	}
	got, err := c.Get("tenant", "go/one", 0)
	rec, _ := got["record"].(map[string]any)
	if err != nil || rec["kind"] != "decision" || rec["body"].(map[string]any)["n"] != float64(1) || rec["writable"] != true {
		t.Fatalf("get: %v %v", got, err)
	}
	if _, err := c.Put("tenant", "go/one", map[string]any{"n": 2}, map[string]any{"expect": 1}); err != nil {
		t.Fatal(err)
	}
	h, err := c.History("tenant", "go/one")
	if err != nil || len(h["records"].([]any)) != 2 {
		t.Fatalf("history: %v %v", h, err)
	}
	l, err := c.List(map[string]any{"scopes": []string{"tenant"}, "prefix": "go/"})
	if err != nil || len(l["records"].([]any)) != 1 || l["more"] != false {
		t.Fatalf("list: %v %v", l, err)
	}
	f, err := c.PutFile([]byte("bytes between tools"))
	if err != nil || !strings.HasPrefix(f["ref"].(string), "oz0-file:sha256:") {
		t.Fatalf("put file: %v %v", f, err)
	}
	back, err := c.GetFile(f["ref"].(string))
	if err != nil || string(back) != "bytes between tools" {
		t.Fatalf("get file: %q %v", back, err)
	}
	if _, err := c.GetFile("oz0-file:sha256:" + strings.Repeat("0", 64)); err == nil || err.(*Error).Status != 404 {
		t.Fatalf("an unknown file: %v", err)
	}
	inline, err := c.Offload("go.tool", "short")
	if err != nil || inline["inline"] != true {
		t.Fatalf("offload: %v %v", inline, err)
	}
	big := strings.Repeat("Part of a long result. ", 6000)
	stub, err := c.Offload("go.tool", big)
	if err != nil || stub["offloaded"] == nil {
		t.Fatalf("offload big: %v %v", stub["note"], err)
	}
	part, err := c.ReadResult(stub["offloaded"].(map[string]any)["ref"].(string), map[string]any{"range": "1-1", "budget": 100})
	if err != nil || part["fit"] == nil {
		t.Fatalf("read result: %v %v", part, err)
	}
}

func TestFromMetaWithoutRecords(t *testing.T) {
	if _, err := FromMeta(map[string]any{}); err == nil || !strings.Contains(err.Error(), "oz0/records") {
		t.Fatalf("FromMeta of an empty _meta: %v", err)
	}
}
