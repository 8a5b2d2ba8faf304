// Command go-verifier checks Custodian's audit log with the Go checksum database's own
// packages (golang.org/x/mod/sumdb/note and sumdb/tlog), none of Custodian's code: it opens
// the served checkpoint note with the verifier key, then checks inclusion proofs of entries
// and a consistency proof from an earlier checkpoint against the roots the notes sign.
//
// Input (stdin, JSON): {"vkey", "note", "entries": [{"index", "line", "proof": [b64]}],
// "previous": {"note", "proof": [b64]}, "tlog_proofs": [{"line", "text"}]}. A tlog_proofs item is
// a c2sp.org/tlog-proof text, read by transparency-dev/formats' proof package, and the entry it
// proves: its checkpoint is opened with the verifier key and the entry's inclusion checked with
// sumdb/tlog. Prints one line per check; exits 1 on the first failure.
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/transparency-dev/formats/proof"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type input struct {
	Vkey    string `json:"vkey"`
	Note    string `json:"note"`
	Entries []struct {
		Index int64    `json:"index"`
		Line  string   `json:"line"`
		Proof []string `json:"proof"`
	} `json:"entries"`
	Previous *struct {
		Note  string   `json:"note"`
		Proof []string `json:"proof"`
	} `json:"previous"`
	TlogProofs []struct {
		Line string `json:"line"`
		Text string `json:"text"`
	} `json:"tlog_proofs"`
}

type head struct {
	origin string
	size   int64
	root   tlog.Hash
}

func fail(format string, args ...any) {
	fmt.Printf("FAIL "+format+"\n", args...)
	os.Exit(1)
}

// open verifies the note's signature with the verifier and reads its checkpoint body.
func open(text string, v note.Verifier) head {
	n, err := note.Open([]byte(text), note.VerifierList(v))
	if err != nil {
		fail("note.Open: %v", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 {
		fail("checkpoint body has %d lines", len(lines))
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		fail("size: %v", err)
	}
	root, err := tlog.ParseHash(lines[2])
	if err != nil {
		fail("root: %v", err)
	}
	return head{origin: lines[0], size: size, root: root}
}

func hashes(b64 []string) []tlog.Hash {
	out := make([]tlog.Hash, len(b64))
	for i, s := range b64 {
		h, err := tlog.ParseHash(s)
		if err != nil {
			b, _ := base64.StdEncoding.DecodeString(s)
			fail("proof hash %d (%d bytes): %v", i, len(b), err)
		}
		out[i] = h
	}
	return out
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail("input: %v", err)
	}
	v, err := note.NewVerifier(in.Vkey)
	if err != nil {
		fail("note.NewVerifier: %v", err)
	}
	for _, t := range in.TlogProofs {
		var p proof.TLogProof
		if err := p.Unmarshal([]byte(t.Text)); err != nil {
			fail("tlog-proof: %v", err)
		}
		h := open(string(p.Checkpoint), v)
		path := make(tlog.RecordProof, len(p.Hashes))
		for i, x := range p.Hashes {
			path[i] = tlog.Hash(x)
		}
		if err := tlog.CheckRecord(path, h.size, h.root, int64(p.Index), tlog.RecordHash([]byte(t.Line))); err != nil {
			fail("tlog-proof inclusion of entry %d: %v", p.Index, err)
		}
		fmt.Printf("ok tlog-proof %s %d in %d\n", h.origin, p.Index, h.size)
	}
	if in.Note == "" {
		return
	}
	cp := open(in.Note, v)
	fmt.Printf("ok note %s %d %s signed by %s\n", cp.origin, cp.size, cp.root, v.Name())
	for _, e := range in.Entries {
		if err := tlog.CheckRecord(tlog.RecordProof(hashes(e.Proof)), cp.size, cp.root, e.Index, tlog.RecordHash([]byte(e.Line))); err != nil {
			fail("inclusion of entry %d: %v", e.Index, err)
		}
		fmt.Printf("ok inclusion %d\n", e.Index)
	}
	if in.Previous != nil {
		prev := open(in.Previous.Note, v)
		if prev.origin != cp.origin {
			fail("the notes are of different logs: %s, %s", prev.origin, cp.origin)
		}
		if err := tlog.CheckTree(tlog.TreeProof(hashes(in.Previous.Proof)), cp.size, cp.root, prev.size, prev.root); err != nil {
			fail("consistency %d -> %d: %v", prev.size, cp.size, err)
		}
		fmt.Printf("ok consistency %d %d\n", prev.size, cp.size)
	}
}
