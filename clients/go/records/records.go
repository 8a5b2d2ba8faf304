// Package records is a minimal client of Custodian's records API for plugin tools written in Go,
// built from a tool call's _meta (its "oz0/records" entry: url, ticket, agent).
package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// MetaKey is where a call's _meta carries the records URL and ticket.
const MetaKey = "oz0/records"

// Error is a refusal of the service: the HTTP status, the refusal's code ("stale", "scope",
// "invalid" …), its other fields ("current", "field", "reason" …) and a message.
type Error struct {
	Status  int
	Code    string
	Fields  map[string]any
	Message string
}

func (e *Error) Error() string { return e.Message }

// Client reaches the records API, results and files with one call's ticket.
type Client struct {
	URL    string // the records URL, …/v1/records
	Ticket string
	Agent  string
	HTTP   *http.Client
}

// FromMeta builds a client from a tool call's _meta.
func FromMeta(meta map[string]any) (*Client, error) {
	entry, _ := meta[MetaKey].(map[string]any)
	u, _ := entry["url"].(string)
	ticket, _ := entry["ticket"].(string)
	if u == "" || ticket == "" {
		return nil, &Error{Code: "no_records", Message: "records: the call's _meta has no " + MetaKey + " entry with a url and a ticket: call the tool through the runtime"}
	}
	agent, _ := entry["agent"].(string)
	return &Client{URL: strings.TrimRight(u, "/"), Ticket: ticket, Agent: agent, HTTP: &http.Client{Timeout: 30 * time.Second}}, nil
}

func (c *Client) base() string { return strings.TrimSuffix(c.URL, "/v1/records") }

func (c *Client) send(method, path string, body []byte, contentType string) (int, []byte, error) {
	req, err := http.NewRequest(method, c.base()+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("authorization", "Bearer "+c.Ticket)
	// Names this client, so a refusal that says what to call next names a call of this package.
	req.Header.Set("x-custodian-client", "go")
	if contentType != "" {
		req.Header.Set("content-type", contentType)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, &Error{Code: "unreachable", Message: fmt.Sprintf("records: the service at %s could not be reached (%v): start it, or give the right url", c.base(), err)}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res.StatusCode, raw, err
}

func answer(status int, raw []byte) (map[string]any, error) {
	body := map[string]any{}
	_ = json.Unmarshal(raw, &body)
	if status < 400 {
		return body, nil
	}
	code, _ := body["error"].(string)
	if code == "" {
		code = fmt.Sprintf("http_%d", status)
	}
	fields := map[string]any{}
	for k, v := range body {
		if k != "error" && k != "message" {
			fields[k] = v
		}
	}
	message, _ := body["message"].(string)
	if message == "" {
		keys := make([]string, 0, len(fields))
		for k := range fields {
			if k != "job_purpose" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		details := make([]string, len(keys))
		for i, k := range keys {
			details[i] = fmt.Sprintf("%s: %v", k, fields[k])
		}
		message = fmt.Sprintf("records: the service answered %d %s", status, code)
		if len(details) > 0 {
			message += " (" + strings.Join(details, ", ") + ")"
		}
		message += ": check the request"
	}
	return nil, &Error{Status: status, Code: code, Fields: fields, Message: message}
}

func (c *Client) postJSON(path string, payload any) (map[string]any, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	status, body, err := c.send("POST", path, raw, "application/json")
	if err != nil {
		return nil, err
	}
	return answer(status, body)
}

// Call sends any op of the records API with its fields: {"op": op, …fields}.
func (c *Client) Call(op string, fields map[string]any) (map[string]any, error) {
	body := map[string]any{"op": op}
	for k, v := range fields {
		body[k] = v
	}
	return c.postJSON("/v1/records", body)
}

// Put writes a version; extra holds the optional fields (expect, kind, state, dedupe,
// supersedes, ends_at, subject_kind, closed). It answers {version, scope, key, job_purpose}.
func (c *Client) Put(scope, key string, body map[string]any, extra map[string]any) (map[string]any, error) {
	fields := map[string]any{"scope": scope, "record_key": key, "body": body}
	for k, v := range extra {
		fields[k] = v
	}
	return c.Call("put", fields)
}

// Get answers {"record": {...}}, or no record when there is none the call may read (version 0: newest).
func (c *Client) Get(scope, key string, version int) (map[string]any, error) {
	return c.Call("get", map[string]any{"scope": scope, "record_key": key, "version": version})
}

// History answers {"records": [...]} newest first.
func (c *Client) History(scope, key string) (map[string]any, error) {
	return c.Call("history", map[string]any{"scope": scope, "record_key": key})
}

// List answers {records, withheld, next, more}; spec holds the list fields (scopes, kinds, …, cursor).
func (c *Client) List(spec map[string]any) (map[string]any, error) {
	if spec == nil {
		spec = map[string]any{}
	}
	return c.Call("list", map[string]any{"list": spec})
}

// Offload posts a tool's result: {"inline": true} or the stub {offloaded, outline, note}.
func (c *Client) Offload(tool string, content any) (map[string]any, error) {
	return c.postJSON("/v1/results", map[string]any{"tool": tool, "content": content})
}

// ReadResult reads a part of an offloaded result; ask holds view, section, range, query, budget.
func (c *Client) ReadResult(ref string, ask map[string]any) (map[string]any, error) {
	body := map[string]any{"ref": ref}
	for k, v := range ask {
		body[k] = v
	}
	return c.postJSON("/v1/results/read", body)
}

// PutFile stores bytes as a file of the job tree: {ref, size}.
func (c *Client) PutFile(data []byte) (map[string]any, error) {
	status, body, err := c.send("PUT", "/v1/files", data, "application/octet-stream")
	if err != nil {
		return nil, err
	}
	return answer(status, body)
}

// GetFile reads a file the job tree stored.
func (c *Client) GetFile(ref string) ([]byte, error) {
	status, body, err := c.send("GET", "/v1/files/"+url.PathEscape(ref), nil, "")
	if err != nil {
		return nil, err
	}
	if status >= 400 {
		_, err := answer(status, body)
		return nil, err
	}
	return body, nil
}
