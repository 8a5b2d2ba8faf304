package fit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A JSON value as JavaScript holds it after JSON.parse: objects keep their keys in JavaScript's
// order (integer keys first, ascending, then the rest as written; a repeated key keeps its first
// place and its last value), numbers are float64.

type jsonKind int

const (
	jNull jsonKind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

type jvalue struct {
	kind  jsonKind
	b     bool
	n     float64
	s     string
	items []*jvalue
	keys  []string
	vals  []*jvalue
}

func parseJSON(raw []byte) (*jvalue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("fit: more than one JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (*jvalue, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &jvalue{kind: jNull}, nil
	case bool:
		return &jvalue{kind: jBool, b: t}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			return nil, err
		}
		return &jvalue{kind: jNumber, n: f}, nil
	case string:
		return &jvalue{kind: jString, s: t}, nil
	case json.Delim:
		if t == '[' {
			v := &jvalue{kind: jArray, items: []*jvalue{}}
			for dec.More() {
				item, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				v.items = append(v.items, item)
			}
			_, err := dec.Token()
			return v, err
		}
		v := &jvalue{kind: jObject}
		at := map[string]int{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key := kt.(string)
			item, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			if i, ok := at[key]; ok {
				v.vals[i] = item
				continue
			}
			at[key] = len(v.keys)
			v.keys = append(v.keys, key)
			v.vals = append(v.vals, item)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		v.order()
		return v, nil
	}
	return nil, fmt.Errorf("fit: unexpected JSON token %v", tok)
}

func indexKey(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	if err != nil || n >= 4294967295 {
		return 0, false
	}
	return n, true
}

// order puts integer keys first, ascending, as JavaScript's objects do.
func (v *jvalue) order() {
	type kv struct {
		k string
		v *jvalue
		n uint64
	}
	var ints, rest []kv
	for i, k := range v.keys {
		if n, ok := indexKey(k); ok {
			ints = append(ints, kv{k, v.vals[i], n})
		} else {
			rest = append(rest, kv{k, v.vals[i], 0})
		}
	}
	if len(ints) == 0 {
		return
	}
	for i := 1; i < len(ints); i++ {
		for j := i; j > 0 && ints[j].n < ints[j-1].n; j-- {
			ints[j], ints[j-1] = ints[j-1], ints[j]
		}
	}
	v.keys, v.vals = v.keys[:0], v.vals[:0]
	for _, e := range append(ints, rest...) {
		v.keys = append(v.keys, e.k)
		v.vals = append(v.vals, e.v)
	}
}

func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				if c < 0x20 {
					fmt.Fprintf(&b, `\u%04x`, c)
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+size])
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// compact is JSON.stringify(v).
func (v *jvalue) compact() string {
	switch v.kind {
	case jNull:
		return "null"
	case jBool:
		if v.b {
			return "true"
		}
		return "false"
	case jNumber:
		return jsNumber(v.n)
	case jString:
		return jsString(v.s)
	case jArray:
		s := make([]string, len(v.items))
		for i, item := range v.items {
			s[i] = item.compact()
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	s := make([]string, len(v.keys))
	for i, k := range v.keys {
		s[i] = jsString(k) + ":" + v.vals[i].compact()
	}
	return "{" + strings.Join(s, ",") + "}"
}

// jsonLines is the lines form: one indented line per top-level key or item.
func jsonLines(v *jvalue) string {
	switch v.kind {
	case jArray:
		if len(v.items) == 0 {
			return "[]"
		}
		lines := []string{"["}
		for i, item := range v.items {
			comma := ""
			if i < len(v.items)-1 {
				comma = ","
			}
			lines = append(lines, "  "+item.compact()+comma)
		}
		return strings.Join(append(lines, "]"), "\n")
	case jObject:
		if len(v.keys) == 0 {
			return "{}"
		}
		lines := []string{"{"}
		for i, k := range v.keys {
			comma := ""
			if i < len(v.keys)-1 {
				comma = ","
			}
			lines = append(lines, "  "+jsString(k)+": "+v.vals[i].compact()+comma)
		}
		return strings.Join(append(lines, "}"), "\n")
	}
	return v.compact()
}

const longestGist = 120

func cutGist(text string) string {
	if u16(text) <= longestGist {
		return text
	}
	return firstRunes(text, longestGist) + "…"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return strconv.Itoa(n) + " " + one
	}
	return strconv.Itoa(n) + " " + many
}

func describe(v *jvalue) string {
	switch v.kind {
	case jArray:
		return "array of " + plural(len(v.items), "item", "items")
	case jNull:
		return "null"
	case jObject:
		if len(v.keys) == 0 {
			return "object with 0 keys"
		}
		shown := v.keys
		more := ""
		if len(shown) > 6 {
			shown, more = shown[:6], ", …"
		}
		return "object with " + plural(len(v.keys), "key", "keys") + ": " + strings.Join(shown, ", ") + more
	case jString:
		return "string of " + strconv.Itoa(utf8.RuneCountInString(v.s)) + " characters"
	}
	return v.compact()
}

func gist(v *jvalue) string {
	if v.kind == jString {
		s := firstSentence([]string{v.s})
		if s == "" {
			s = cutGist(v.s)
		}
		return jsString(s)
	}
	return cutGist(v.compact())
}

func shapeJSON(v *jvalue) *shape {
	full := jsonLines(v)
	sh := &shape{kind: "JSON value", full: full, lines: linesOf(full), facts: describe(v),
		queries: "a top-level key, an item such as [3], or a line range such as 120-180"}
	if v.kind == jArray && len(v.items) > 0 {
		sh.kind, sh.facts = "JSON array", plural(len(v.items), "item", "items")
		for i, item := range v.items {
			title := "[" + strconv.Itoa(i) + "]"
			sh.parts = append(sh.parts, part{title: title, outline: title + " " + describe(item) + " (line " + strconv.Itoa(i+2) + ")",
				summary: "  " + title + " " + gist(item), spans: []span{{i + 1, i + 2}}, names: []string{title}})
		}
	} else if v.kind == jObject {
		sh.kind, sh.facts = "JSON object", plural(len(v.keys), "key", "keys")
		for i, k := range v.keys {
			key := jsString(k)
			sh.parts = append(sh.parts, part{title: k, outline: key + ": " + describe(v.vals[i]) + " (" + lineSpan(i+1, i+2) + ")",
				summary: "  " + key + ": " + gist(v.vals[i]), spans: []span{{i + 1, i + 2}}, names: []string{k, key}})
		}
	}
	return sh
}

// FitJSON fits a JSON value, given as its text, read by its top-level keys or items (one
// indented line per value). The text is refused only when it is not JSON.
func FitJSON(raw []byte, o Options) (Fitted, error) {
	v, err := parseJSON(raw)
	if err != nil {
		return Fitted{}, err
	}
	return fitShape(shapeJSON(v), o, "the JSON"), nil
}

// JSONLines is the lines form of a JSON text: one indented line per top-level key or item.
func JSONLines(raw []byte) (string, error) {
	v, err := parseJSON(raw)
	if err != nil {
		return "", err
	}
	return jsonLines(v), nil
}
