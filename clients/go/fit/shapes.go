package fit

import (
	"regexp"
	"strconv"
	"strings"
)

// A whole cut into parts: a document by headings, definitions or runs of lines; a diff by files
// and hunks; a JSON value by top-level keys or items.

type span struct{ start, end int }

type part struct {
	title, outline, summary string
	spans                   []span
	names                   []string
	hidden                  bool
}

type shape struct {
	kind, full string
	lines      []string
	parts      []part
	facts      string
	queries    string
}

var (
	headingRe    = regexp.MustCompile(`^(#{1,6})[ \t]+(` + reDot + `+?)(?:[ \t]+#+)?[ \t]*\r?$`)
	fenceRe      = regexp.MustCompile(`^` + reS + `*(` + "```" + `|~~~)`)
	setextRe     = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*\r?$`)
	notSetextRe  = regexp.MustCompile(`^` + reS + `*([-*+>|]|[0-9]+[.)])(` + reS + `|$)|^ {4}|^` + reS + `*(---|===)`)
	tsDefRe      = regexp.MustCompile(`^(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(?:async[ \t]+)?(function\*?|class|const|let|var|interface|type|enum|namespace)[ \t]+([A-Za-z_$][A-Za-z0-9_$]*)`)
	pyDefRe      = regexp.MustCompile(`^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_][A-Za-z0-9_]*)`)
	closerRe     = regexp.MustCompile(`^[)\]}]`)
	leadingRe    = regexp.MustCompile(`^(@|//|/\*|\*|#)`)
	commentRe    = regexp.MustCompile(`^(/\*\*?|\*/|\*|//|#)` + reS + `?`)
	docOpenRe    = regexp.MustCompile(`^("""|''')`)
	docCloseRe   = regexp.MustCompile(`("""|''')$`)
	extRe        = regexp.MustCompile(`\.([A-Za-z0-9]+)$`)
	gitRe        = regexp.MustCompile(`^diff --git a/(` + reDot + `*?) b/(` + reDot + `*?)\r?$`)
	oldRe        = regexp.MustCompile(`^--- (?:a/)?(` + reDot + `*?)(?:\t` + reDot + `*)?\r?$`)
	newRe        = regexp.MustCompile(`^\+\+\+ (?:b/)?(` + reDot + `*?)(?:\t` + reDot + `*)?\r?$`)
	hunkRe       = regexp.MustCompile(`^@@ -[0-9]+(?:,([0-9]+))? \+[0-9]+(?:,([0-9]+))? @@`)
	rangeRe      = regexp.MustCompile(`^` + reS + `*([0-9]+)` + reS + `*(?:-|–|\.\.)` + reS + `*([0-9]+)` + reS + `*$`)
	runOfLines   = 40
	markdownExts = map[string]bool{"md": true, "markdown": true, "mdx": true}
	codeExts     = map[string]bool{"ts": true, "tsx": true, "js": true, "jsx": true, "mjs": true, "cjs": true, "mts": true, "cts": true, "py": true, "pyi": true}
)

func anyNonBlank(lines []string) bool {
	for _, l := range lines {
		if !blank(l) {
			return true
		}
	}
	return false
}

func markdownParts(lines []string) []part {
	type head struct {
		at, body, level int
		title           string
	}
	var heads []head
	fenced := false
	for at := 0; at < len(lines); at++ {
		line := lines[at]
		fence := fenceRe.MatchString(line)
		if fence {
			fenced = !fenced
		}
		if fenced || fence {
			continue
		}
		if m := headingRe.FindStringSubmatch(line); m != nil {
			heads = append(heads, head{at, at + 1, len(m[1]), trim(m[2])})
		} else if !blank(line) && !notSetextRe.MatchString(line) && at+1 < len(lines) {
			if under := setextRe.FindStringSubmatch(lines[at+1]); under != nil {
				level := 2
				if strings.HasPrefix(under[1], "=") {
					level = 1
				}
				heads = append(heads, head{at, at + 2, level, trim(line)})
				at++
			}
		}
	}
	if len(heads) == 0 {
		return nil
	}
	var parts []part
	top := heads[0].at
	if anyNonBlank(lines[:top]) {
		parts = append(parts, part{
			title: "(before the first heading)", outline: "(before the first heading, " + lineSpan(0, top) + ")",
			summary: firstSentence(lines[:top]), spans: []span{{0, top}}, names: []string{},
		})
	}
	ends := make([]int, len(heads))
	var stack []int
	for k := len(heads) - 1; k >= 0; k-- {
		for len(stack) > 0 && heads[stack[len(stack)-1]].level > heads[k].level {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			ends[k] = heads[stack[len(stack)-1]].at
		} else {
			ends[k] = len(lines)
		}
		stack = append(stack, k)
	}
	for k, h := range heads {
		own := len(lines)
		if k+1 < len(heads) {
			own = heads[k+1].at
		}
		mark := strings.Repeat("#", h.level) + " " + h.title
		sentence := firstSentence(lines[h.body:own])
		summary := mark
		if sentence != "" {
			summary = mark + ": " + sentence
		}
		parts = append(parts, part{
			title: h.title, outline: mark + " (" + lineSpan(h.at, ends[k]) + ")", summary: summary,
			spans: []span{{h.at, ends[k]}}, names: []string{h.title, mark},
		})
	}
	return parts
}

func definitionEnd(lines []string, at, indent int) int {
	end := at + 1
	for j := at + 1; j < len(lines); j++ {
		line := lines[j]
		if blank(line) {
			continue
		}
		if indentOf(line) > indent || closerRe.MatchString(trimStart(line)) {
			end = j + 1
		} else {
			break
		}
	}
	return end
}

func definitionStart(lines []string, at, indent, floor int) int {
	leads := func(line string) bool {
		t := trim(line)
		return leadingRe.MatchString(t) && (indentOf(line) == indent || (strings.HasPrefix(t, "*") && indentOf(line) == indent+1))
	}
	start := at
	for start-1 >= floor && leads(lines[start-1]) {
		start--
	}
	return start
}

func docOf(lines []string, start, at, end int) string {
	var above []string
	for _, l := range lines[start:at] {
		l = commentRe.ReplaceAllLiteralString(trim(l), "")
		if !strings.HasPrefix(l, "@") {
			above = append(above, l)
		}
	}
	for _, l := range above {
		if trim(l) != "" {
			return firstSentence(above)
		}
	}
	stop := end
	if at+8 < stop {
		stop = at + 8
	}
	var body []string
	if at+1 < stop {
		for _, l := range lines[at+1 : stop] {
			body = append(body, trim(l))
		}
	}
	for i, l := range body {
		if strings.HasPrefix(l, `"""`) || strings.HasPrefix(l, "'''") {
			for _, before := range body[:i] {
				if before != "" {
					return ""
				}
			}
			var doc []string
			for _, d := range body[i:] {
				doc = append(doc, docCloseRe.ReplaceAllLiteralString(docOpenRe.ReplaceAllLiteralString(d, ""), ""))
			}
			return firstSentence(doc)
		}
	}
	return ""
}

func codeParts(lines []string) []part {
	var parts []part
	floor := 0
	for at, line := range lines {
		ts := tsDefRe.FindStringSubmatch(line)
		var py []string
		if ts == nil {
			py = pyDefRe.FindStringSubmatch(line)
		}
		indent := -1
		var name, keyword string
		if ts != nil {
			indent, keyword, name = 0, ts[1], ts[2]
		} else if py != nil {
			indent, keyword, name = len(py[1]), py[2], py[3]
		}
		if indent < 0 || indent > 4 {
			continue
		}
		start := definitionStart(lines, at, indent, floor)
		end := definitionEnd(lines, at, indent)
		doc := docOf(lines, start, at, end)
		pad := ""
		if indent > 0 {
			pad = "  "
		}
		summary := pad + trim(line)
		if doc != "" {
			summary += " — " + doc
		}
		parts = append(parts, part{
			title: name, outline: pad + keyword + " " + name + " (" + lineSpan(start, end) + ")", summary: summary,
			spans: []span{{start, end}}, names: []string{name},
		})
		if indent == 0 {
			floor = at + 1
		}
	}
	return parts
}

func textParts(lines []string) []part {
	parts := []part{}
	at := 0
	for at < len(lines) {
		for at < len(lines) && blank(lines[at]) {
			at++
		}
		if at >= len(lines) {
			break
		}
		end := at
		for end < len(lines) && !blank(lines[end]) && end-at < runOfLines {
			end++
		}
		s := lineSpan(at, end)
		parts = append(parts, part{title: s, outline: s, summary: s + ": " + firstSentence(lines[at:end]), spans: []span{{at, end}}, names: []string{}})
		at = end
	}
	return parts
}

func byName(name string) string {
	m := extRe.FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	ext := strings.ToLower(m[1])
	if markdownExts[ext] {
		return "markdown"
	}
	if codeExts[ext] {
		return "code"
	}
	return ""
}

func shapeDocument(text, name string) *shape {
	lines := linesOf(text)
	hint := byName(name)
	var code, markdown []part
	if hint != "markdown" {
		code = codeParts(lines)
	}
	if len(code) == 0 {
		markdown = markdownParts(lines)
	}
	s := &shape{full: text, lines: lines}
	switch {
	case len(code) > 0:
		s.kind, s.parts, s.queries = "code", code, "a definition's name (a function, class or const) or a line range such as 120-180"
	case len(markdown) > 0:
		s.kind, s.parts, s.queries = "Markdown", markdown, "a heading or a line range such as 120-180"
	default:
		s.kind, s.parts, s.queries = "text", textParts(lines), "a line range such as 120-180"
	}
	count := len(s.parts)
	unit, plural := "definition", "definitions"
	if s.kind == "Markdown" {
		unit, plural = "part", "parts"
	} else if s.kind == "text" {
		unit, plural = "run of lines", "runs of lines"
	}
	if count == 1 {
		s.facts = "1 " + unit
	} else {
		s.facts = strconv.Itoa(count) + " " + plural
	}
	return s
}

type diffFile struct {
	start, headerEnd, end int
	path, old             string
	added, removed        int
	hunks                 []span
}

func atoiClamped(s string) int {
	if len(s) > 15 {
		return 1 << 50
	}
	n, _ := strconv.Atoi(s)
	return n
}

func parseDiff(lines []string) ([]*diffFile, int) {
	var files []*diffFile
	preamble := len(lines)
	var current *diffFile
	open := func(at int, path string) *diffFile {
		if len(files) == 0 {
			preamble = at
		}
		current = &diffFile{start: at, headerEnd: at + 1, end: at + 1, path: path, old: path}
		files = append(files, current)
		return current
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if git := gitRe.FindStringSubmatch(line); git != nil {
			f := open(i, git[2])
			f.old = git[1]
			continue
		}
		old := oldRe.FindStringSubmatch(line)
		var neu []string
		if i+1 < len(lines) {
			neu = newRe.FindStringSubmatch(lines[i+1])
		}
		if old != nil && neu != nil {
			var f *diffFile
			if current != nil && len(current.hunks) == 0 && current.headerEnd == i {
				f = current
			} else {
				f = open(i, neu[1])
			}
			if old[1] == "/dev/null" {
				f.old = neu[1]
			} else {
				f.old = old[1]
			}
			if neu[1] == "/dev/null" {
				f.path = f.old
			} else {
				f.path = neu[1]
			}
			f.headerEnd, f.end = i+2, i+2
			i++
			continue
		}
		if hunk := hunkRe.FindStringSubmatchIndex(line); hunk != nil && current != nil {
			olds, news := 1, 1
			if hunk[2] >= 0 {
				olds = atoiClamped(line[hunk[2]:hunk[3]])
			}
			if hunk[4] >= 0 {
				news = atoiClamped(line[hunk[4]:hunk[5]])
			}
			j := i + 1
			for j < len(lines) && (olds > 0 || news > 0 || strings.HasPrefix(lines[j], "\\")) {
				c := byte(0)
				if lines[j] != "" {
					c = lines[j][0]
				}
				switch c {
				case '-':
					olds--
					current.removed++
				case '+':
					news--
					current.added++
				case '\\':
				default:
					olds--
					news--
				}
				j++
			}
			current.hunks = append(current.hunks, span{i, j})
			current.end = j
			i = j - 1
			continue
		}
		if current != nil && len(current.hunks) == 0 {
			current.headerEnd, current.end = i+1, i+1
		} else if current != nil {
			current.end = i + 1
		}
	}
	return files, preamble
}

func shapeDiff(diff string) *shape {
	lines := linesOf(diff)
	files, preamble := parseDiff(lines)
	parts := []part{}
	pre := lines[:preamble]
	for _, l := range pre {
		if trim(l) != "" {
			parts = append(parts, part{
				title: "(before the first file)", outline: "(before the first file, " + lineSpan(0, preamble) + ")",
				summary: firstSentence(pre), spans: []span{{0, preamble}}, names: []string{},
			})
			break
		}
	}
	added, removed := 0, 0
	for _, f := range files {
		added += f.added
		removed += f.removed
		hunks := "hunks"
		if len(f.hunks) == 1 {
			hunks = "hunk"
		}
		counts := "+" + strconv.Itoa(f.added) + " −" + strconv.Itoa(f.removed) + ", " + strconv.Itoa(len(f.hunks)) + " " + hunks
		names := []string{f.path}
		moved := ""
		if f.old != f.path {
			names = append(names, f.old)
			moved = " (from " + f.old + ")"
		}
		summary := []string{f.path + " (" + counts + ")"}
		for _, h := range f.hunks {
			summary = append(summary, "  "+trim(lines[h.start]))
		}
		parts = append(parts, part{
			title: f.path, outline: f.path + moved + " (" + counts + ", " + lineSpan(f.start, f.end) + ")",
			summary: strings.Join(summary, "\n"), spans: []span{{f.start, f.end}}, names: names,
		})
		for k, h := range f.hunks {
			suffix := "#" + strconv.Itoa(k+1)
			hn := make([]string, len(names))
			for i, p := range names {
				hn[i] = p + suffix
			}
			parts = append(parts, part{title: f.path + suffix, spans: []span{{f.start, f.headerEnd}, h}, names: hn, hidden: true})
		}
	}
	fileWord := "files"
	if len(files) == 1 {
		fileWord = "file"
	}
	return &shape{
		kind: "diff", full: diff, lines: lines, parts: parts,
		facts:   strconv.Itoa(len(files)) + " " + fileWord + ", +" + strconv.Itoa(added) + " −" + strconv.Itoa(removed) + " lines",
		queries: "a path, <path>#<n> for its n-th hunk, or a line range such as 120-180",
	}
}
