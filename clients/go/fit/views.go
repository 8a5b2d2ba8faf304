package fit

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Bounds and the default budget.
const (
	CAP           = 50_000  // at most this many tokens in any fitted answer
	CAP_CHARS     = 200_000 // at most this many characters in any fitted answer
	CharsPerToken = 8
	Context       = 128_000
	MinBudget     = 500
	MaxBudget     = 8_000
	// MetaKey is where a tool result's _meta carries the fit note.
	MetaKey = "oz0/fit"
)

// CharsOf is the characters a budget allows: 8 per token.
func CharsOf(budget int) int { return budget * CharsPerToken }

// DefaultBudget is a quarter of what used leaves of a 128,000-token context, 500 to 8,000; half
// of that once the job tree has spent its warning share (warned).
func DefaultBudget(used float64, warned bool) int {
	spent := 0.0
	if !math.IsNaN(used) && !math.IsInf(used, 0) && used > 0 {
		spent = used
	}
	left := math.Max(0, Context-spent)
	budget := int(math.Min(MaxBudget, math.Max(MinBudget, math.Floor(left/4))))
	if warned {
		return budget / 2
	}
	return budget
}

// Wanted says whether a call asked for fitting at all: a view, a budget (nil: none) or a query.
func Wanted(view string, budget *int, query string) bool {
	return view != "" || budget != nil || query != ""
}

// Options of a fit function. A zero Budget, Chars, or an empty View, Query, Head or Name counts
// as not given.
type Options struct {
	View   string // stub, summary, section or full; empty: the biggest that fits
	Budget int    // the most tokens the answer may take
	Query  string // a heading, a definition's name, a path, <path>#<n>, or a line range 120-180
	Chars  int    // the caller's own bound, in characters
	Head   string // a line put at the top of every view
	Name   string // what the note and the stub call the whole
}

// Note is the fit note every fitted answer carries.
type Note struct {
	View    string `json:"view"`
	Budget  *int   `json:"budget"`
	Size    int    `json:"size"`
	Tokens  int    `json:"tokens"`
	Omitted string `json:"omitted"`
}

// Fitted is a fit function's answer; Fit is nil only for an unfitted answer.
type Fitted struct {
	Text string
	Fit  *Note
}

// Meta is the fit note as a tool result's _meta carries it under MetaKey (nil when unfitted).
func (f Fitted) Meta() map[string]any {
	if f.Fit == nil {
		return nil
	}
	var budget any
	if f.Fit.Budget != nil {
		budget = *f.Fit.Budget
	}
	return map[string]any{"view": f.Fit.View, "budget": budget, "size": f.Fit.Size, "tokens": f.Fit.Tokens, "omitted": f.Fit.Omitted}
}

type bound struct {
	name, unit string
	limit      int
	phrase     string
}

func boundsOf(budget *int, chars int) []bound {
	bounds := []bound{{"CAP", "tokens", CAP, "the cap of " + num(CAP) + " tokens (CAP)"}}
	if budget != nil {
		b := *budget
		bounds = append(bounds, bound{"budget", "tokens", b, "the budget of " + num(b) + " tokens"})
		bounds = append(bounds, bound{"charsOf", "characters", CharsOf(b),
			"the " + num(CharsOf(b)) + " characters a budget of " + num(b) + " tokens allows (charsOf: " + strconv.Itoa(CharsPerToken) + " per token)"})
	}
	bounds = append(bounds, bound{"CAP_CHARS", "characters", CAP_CHARS, "the cap of " + num(CAP_CHARS) + " characters (CAP_CHARS)"})
	if chars != 0 {
		c := chars
		if c < 0 {
			c = 0
		}
		bounds = append(bounds, bound{"chars", "characters", c, "the caller's bound of " + num(c) + " characters (chars)"})
	}
	sort.SliceStable(bounds, func(i, j int) bool {
		a, b := bounds[i], bounds[j]
		if a.unit == b.unit {
			return a.limit < b.limit
		}
		return a.unit == "tokens"
	})
	return bounds
}

type measured struct{ tokens, chars int }

func measure(text string) measured { return measured{Weigh(text), CountChars(text)} }

func broken(bounds []bound, m measured) []bound {
	var out []bound
	for _, b := range bounds {
		if b.unit == "tokens" && m.tokens > b.limit {
			out = append(out, b)
			break
		}
	}
	for _, b := range bounds {
		if b.unit == "characters" && m.chars > b.limit {
			out = append(out, b)
			break
		}
	}
	return out
}

func phraseOf(bounds []bound) string {
	s := make([]string, len(bounds))
	for i, b := range bounds {
		s[i] = b.phrase
	}
	return strings.Join(s, " and ")
}

type refusal struct {
	view   string
	tokens int
	bounds []bound
}

type story struct {
	view, name   string
	size, tokens int
	query        string
	section      string
	refused      *refusal
	missing      string
	outlineShown int
	outlineTotal int
	hasOutline   bool
	cut          []bound
	queries      string
}

func viewPhrase(view, query string) string {
	switch view {
	case "full":
		return "the whole"
	case "section":
		return "the section matching '" + query + "'"
	case "summary":
		return "the summary"
	}
	return "the stub"
}

func omitted(s story) string {
	if s.view == "full" {
		return "Nothing was left out."
	}
	rest := num(max(0, s.size-s.tokens)) + " tokens"
	var reasons []string
	if s.missing == "no_query" {
		reasons = append(reasons, "no query named a section")
	}
	if s.missing == "no_match" {
		reasons = append(reasons, "nothing in it matches the query '"+s.query+"'")
	}
	if s.refused != nil {
		reasons = append(reasons, viewPhrase(s.refused.view, s.query)+" ("+num(s.refused.tokens)+" tokens) is over "+phraseOf(s.refused.bounds))
	}
	var why string
	switch {
	case len(reasons) > 0:
		why = " because " + strings.Join(reasons, ", and ")
	case s.view == "section":
		why = ", as the query asked for this part only"
	default:
		why = `, as view "` + s.view + `" was asked for`
	}
	if s.view == "section" {
		return "This is " + s.section + " of " + s.name + "; the rest (" + rest + ") was left out" + why + "."
	}
	read := `view "section" with a query (` + s.queries + ")"
	if s.view == "summary" {
		return "This is the summary of " + s.name + " (its outline with each part's first sentence); the rest (" + rest + ") was left out" + why + ". To read a part, ask for " + read + "."
	}
	partial := ""
	if s.hasOutline && s.outlineShown < s.outlineTotal {
		partial = "; the outline shows " + num(s.outlineShown) + " of its " + num(s.outlineTotal) + " parts"
	}
	cut := ""
	if len(s.cut) > 0 {
		cut = "; the stub itself was cut short to fit " + phraseOf(s.cut)
	}
	return "This is the stub of " + s.name + " (its size and outline); the rest (" + rest + ") was left out" + why + partial + cut + ". To read more, ask for a bigger budget, or for " + read + "."
}

func headline(sh *shape, name string, size int) string {
	return name + ": " + sh.kind + ", " + num(size) + " tokens, " + num(len(sh.lines)) + " lines, " + num(CountChars(sh.full)) + " characters; " + sh.facts + "."
}

func visible(sh *shape) []part {
	var out []part
	for _, p := range sh.parts {
		if !p.hidden {
			out = append(out, p)
		}
	}
	return out
}

// cutToFit is the longest prefix of text, in UTF-16 code units, that fits, never splitting a pair.
func cutToFit(text string, fits func(string) bool) string {
	u := utf16.Encode([]rune(text))
	prefix := func(k int) string { return string(utf16.Decode(u[:k])) }
	lo, hi := 0, len(u)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(prefix(mid)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	end := lo
	for end > 0 && !fits(prefix(end)) {
		end--
	}
	if end > 0 && u[end-1] >= 0xd800 && u[end-1] <= 0xdbff {
		end--
	}
	return prefix(end)
}

func selectSection(sh *shape, query string) (string, string, bool) {
	if m := rangeRe.FindStringSubmatch(query); m != nil {
		a, b := atoiClamped(m[1]), atoiClamped(m[2])
		lo, hi := min(a, b), max(a, b)
		if lo < 1 || lo > len(sh.lines) {
			return "", "", false
		}
		to := min(hi, len(sh.lines))
		return strings.Join(sh.lines[lo-1:to], "\n"), lineSpan(lo-1, to) + " of " + strconv.Itoa(len(sh.lines)), true
	}
	name := trim(query)
	want := strings.ToLower(name)
	if want == "" {
		return "", "", false
	}
	named := func(pick func(string) bool, first bool) []part {
		var out []part
		for _, p := range sh.parts {
			for _, n := range p.names {
				if pick(strings.ToLower(n)) {
					out = append(out, p)
					break
				}
			}
			if first && len(out) > 0 {
				break
			}
		}
		return out
	}
	parts := named(func(n string) bool { return n == want }, false)
	if len(parts) == 0 {
		parts = named(func(n string) bool { return strings.HasSuffix(n, "/"+want) }, true)
	}
	if len(parts) == 0 {
		parts = named(func(n string) bool { return strings.Contains(n, want) }, true)
	}
	if len(parts) == 0 {
		return "", "", false
	}
	var spans []span
	for _, p := range parts {
		spans = append(spans, p.spans...)
	}
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end < spans[j].end
	})
	var merged []span
	for _, s := range spans {
		if len(merged) > 0 && s.start <= merged[len(merged)-1].end {
			merged[len(merged)-1].end = max(merged[len(merged)-1].end, s.end)
		} else {
			merged = append(merged, s)
		}
	}
	texts := make([]string, len(merged))
	where := make([]string, len(merged))
	for i, s := range merged {
		texts[i] = strings.Join(sh.lines[s.start:s.end], "\n")
		where[i] = lineSpan(s.start, s.end)
	}
	return strings.Join(texts, "\n"), "the section matching '" + name + "' (" + strings.Join(where, ", ") + ")", true
}

var order = []string{"full", "section", "summary", "stub"}

func fitShape(sh *shape, o Options, noun string) Fitted {
	var budget *int
	if o.Budget != 0 {
		b := o.Budget
		if b < 0 {
			b = 0
		}
		budget = &b
	}
	if !Wanted(o.View, budget, o.Query) {
		return Fitted{Text: sh.full}
	}
	name := o.Name
	if name == "" {
		name = noun
	}
	withHead := func(body string) string {
		if o.Head != "" {
			return o.Head + "\n" + body
		}
		return body
	}
	bounds := boundsOf(budget, o.Chars)
	whole := measure(withHead(sh.full))
	size := whole.tokens
	query := trim(o.Query)
	start := ""
	for _, v := range order {
		if v == o.View {
			start = v
		}
	}
	if start == "" {
		start = "full"
		if query != "" {
			start = "section"
		}
	}
	st := story{name: name, size: size, query: query, queries: sh.queries}
	answer := func(view, text string, m measured, s story) Fitted {
		s.view, s.tokens = view, m.tokens
		return Fitted{Text: text, Fit: &Note{View: view, Budget: budget, Size: size, Tokens: m.tokens, Omitted: omitted(s)}}
	}
	from := 0
	for i, v := range order {
		if v == start {
			from = i
		}
	}
	for _, view := range order[from:] {
		if view == "stub" {
			break
		}
		var body, section string
		if view == "section" {
			if query == "" {
				if start == "section" {
					st.missing = "no_query"
				}
				continue
			}
			text, what, ok := selectSection(sh, query)
			if !ok {
				st.missing = "no_match"
				continue
			}
			body, section = text, what
		} else if view == "full" {
			body = sh.full
		} else {
			lines := []string{headline(sh, name, size)}
			for _, p := range visible(sh) {
				lines = append(lines, p.summary)
			}
			body = strings.Join(lines, "\n")
		}
		text := withHead(body)
		m := whole
		if view != "full" {
			m = measure(text)
		}
		over := broken(bounds, m)
		if len(over) == 0 {
			s := st
			s.section = section
			return answer(view, text, m, s)
		}
		if st.refused == nil {
			st.refused = &refusal{view, m.tokens, over}
		}
	}
	text, shown, cut := stubOf(sh, name, size, withHead, bounds)
	s := st
	s.hasOutline, s.outlineShown, s.outlineTotal, s.cut = true, shown, len(visible(sh)), cut
	return answer("stub", text, measure(text), s)
}

func stubOf(sh *shape, name string, size int, withHead func(string) string, bounds []bound) (string, int, []bound) {
	parts := visible(sh)
	hint := `To read more: ask for a bigger budget, or for view "section" with a query (` + sh.queries + ")."
	head := headline(sh, name, size)
	make_ := func(shown int) string {
		lines := []string{head}
		if len(parts) > 0 && shown > 0 {
			lines = append(lines, "Outline:")
			for _, p := range parts[:shown] {
				lines = append(lines, p.outline)
			}
		}
		if shown < len(parts) {
			lines = append(lines, "… and "+num(len(parts)-shown)+" more")
		}
		lines = append(lines, hint)
		return withHead(strings.Join(lines, "\n"))
	}
	fits := func(text string) bool { return len(broken(bounds, measure(text))) == 0 }
	if all := make_(len(parts)); fits(all) {
		return all, len(parts), nil
	}
	lo, hi := 0, len(parts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(make_(mid)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if t := make_(lo); fits(t) {
		return t, lo, nil
	}
	whole := make_(0)
	return cutToFit(whole, fits), 0, broken(bounds, measure(whole))
}

// FitDocument fits a text document (Markdown by headings, TypeScript, JavaScript or Python by
// definitions, other text by runs of lines) to a view and budget.
func FitDocument(text string, o Options) Fitted {
	name := o.Name
	if name == "" {
		name = o.Head
	}
	return fitShape(shapeDocument(text, name), o, "the document")
}

// FitDiff fits a unified diff; its parts are files and, by <path>#<n>, hunks.
func FitDiff(diff string, o Options) Fitted { return fitShape(shapeDiff(diff), o, "the diff") }
