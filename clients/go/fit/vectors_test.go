package fit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Go library gives the TypeScript library's numbers and fitted text, byte for byte, on the
// shared vectors (test/fixtures/fit-vectors, written from the TypeScript library).

var root = filepath.Join("..", "..", "..")

func load(t *testing.T, name string, into any) {
	t.Helper()
	dir := os.Getenv("CUSTODIAN_FIT_VECTORS")
	if dir == "" {
		dir = filepath.Join(root, "test", "fixtures", "fit-vectors")
	}
	raw, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
}

func corpus(t *testing.T, file string) string {
	raw, err := os.ReadFile(filepath.Join(root, "test", "fixtures", "fit-corpus", "docs", file))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

type input struct {
	Corpus string  `json:"corpus"`
	Text   *string `json:"text"`
	Repeat string  `json:"repeat"`
	Times  int     `json:"times"`
}

func (in input) text(t *testing.T) string {
	switch {
	case in.Corpus != "":
		return corpus(t, in.Corpus)
	case in.Text != nil:
		return *in.Text
	}
	return strings.Repeat(in.Repeat, in.Times)
}

func TestWeighEqualsOnEveryCorpusDocument(t *testing.T) {
	var v struct {
		Corpus []struct {
			File   string `json:"file"`
			Tokens int    `json:"tokens"`
		} `json:"corpus"`
		Texts []struct {
			Text   string `json:"text"`
			Tokens int    `json:"tokens"`
			Chars  int    `json:"chars"`
		} `json:"texts"`
	}
	load(t, "weigh.json", &v)
	if len(v.Corpus) != 252 {
		t.Fatalf("%d corpus documents, want 252", len(v.Corpus))
	}
	for _, c := range v.Corpus {
		if got := Weigh(corpus(t, c.File)); got != c.Tokens {
			t.Errorf("Weigh(%s) = %d, want %d", c.File, got, c.Tokens)
		}
	}
	for _, c := range v.Texts {
		// Go strings hold no lone surrogates: a text with one is not a Go text.
		if strings.ContainsRune(c.Text, '\uFFFD') {
			continue
		}
		if got := Weigh(c.Text); got != c.Tokens {
			t.Errorf("Weigh(%q) = %d, want %d", c.Text, got, c.Tokens)
		}
		if got := CountChars(c.Text); got != c.Chars {
			t.Errorf("CountChars(%q) = %d, want %d", c.Text, got, c.Chars)
		}
	}
}

type fitCase struct {
	Name    string  `json:"name"`
	Fn      string  `json:"fn"`
	Input   input   `json:"input"`
	Options Options `json:"options"`
	Text    string  `json:"text"`
	Fit     *Note   `json:"fit"`
}

func TestFittingEquals(t *testing.T) {
	var cases []fitCase
	load(t, "fit.json", &cases)
	for _, c := range cases {
		text := c.Input.text(t)
		var got Fitted
		switch c.Fn {
		case "document":
			got = FitDocument(text, c.Options)
		case "diff":
			got = FitDiff(text, c.Options)
		default:
			var err error
			if got, err = FitJSON([]byte(text), c.Options); err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
		}
		if got.Text != c.Text {
			t.Errorf("%s: text differs\n got: %.300q\nwant: %.300q", c.Name, got.Text, c.Text)
		}
		gj, _ := json.Marshal(got.Fit)
		wj, _ := json.Marshal(c.Fit)
		if string(gj) != string(wj) {
			t.Errorf("%s: note differs\n got: %s\nwant: %s", c.Name, gj, wj)
		}
	}
	if len(cases) < 700 {
		t.Fatalf("only %d cases", len(cases))
	}
}

func TestSmallFunctionsEqual(t *testing.T) {
	var v struct {
		CAP           int                           `json:"CAP"`
		CAPChars      int                           `json:"CAP_CHARS"`
		CharsOf       []struct{ Budget, Chars int } `json:"charsOf"`
		DefaultBudget []struct {
			Used   float64 `json:"used"`
			Warned bool    `json:"warned"`
			Budget int     `json:"budget"`
		} `json:"defaultBudget"`
	}
	load(t, "misc.json", &v)
	if v.CAP != CAP || v.CAPChars != CAP_CHARS {
		t.Errorf("CAP %d, CAP_CHARS %d", v.CAP, v.CAPChars)
	}
	for _, c := range v.CharsOf {
		if CharsOf(c.Budget) != c.Chars {
			t.Errorf("CharsOf(%d)", c.Budget)
		}
	}
	for _, c := range v.DefaultBudget {
		if got := DefaultBudget(c.Used, c.Warned); got != c.Budget {
			t.Errorf("DefaultBudget(%v, %v) = %d, want %d", c.Used, c.Warned, got, c.Budget)
		}
	}
}
