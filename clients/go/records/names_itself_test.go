package records

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The service addresses a refusal that says what to call next to the surface that asked: this
// client names itself in x-custodian-client on every request.
func TestNamesItselfToTheService(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("x-custodian-client"))
		w.Header().Set("content-type", "application/json")
		_, _ = w.Write([]byte(`{"job_purpose":""}`))
	}))
	defer srv.Close()
	c, err := FromMeta(map[string]any{MetaKey: map[string]any{"url": srv.URL + "/v1/records", "ticket": "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get("tenant", "k", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Offload("tool", "short"); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != "go" || seen[1] != "go" {
		t.Fatalf("x-custodian-client sent: %q", seen)
	}
}
