package fit

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text as JavaScript sees it: its white space, trimming, UTF-16 lengths and number formatting.

const jsWS = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

// S is JavaScript's \s; dot is its `.` (anything but a line terminator).
const reS = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`
const reDot = `[^\n\r\x{2028}\x{2029}]`

func trim(s string) string      { return strings.Trim(s, jsWS) }
func trimStart(s string) string { return strings.TrimLeft(s, jsWS) }
func blank(s string) bool       { return trim(s) == "" }

// u16 is the length JavaScript gives a string: UTF-16 code units.
func u16(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// CountChars counts characters as a reader does: code points, so an emoji is one.
func CountChars(text string) int { return utf8.RuneCountInString(text) }

// firstRunes is the first n code points of s.
func firstRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// num writes an integer as en-US does: 12,345.
func num(x int) string {
	s := strconv.Itoa(x)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// jsNumber is Number.prototype.toString for a finite number.
func jsNumber(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "null"
	}
	if x == 0 {
		return "0"
	}
	if x < 0 {
		return "-" + jsNumber(-x)
	}
	e := strconv.FormatFloat(x, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	ex, _ := strconv.Atoi(exp)
	point := ex + 1
	k := len(digits)
	switch {
	case k <= point && point <= 21:
		return digits + strings.Repeat("0", point-k)
	case 0 < point && point <= 21:
		return digits[:point] + "." + digits[point:]
	case -6 < point && point <= 0:
		return "0." + strings.Repeat("0", -point) + digits
	}
	sign := "+"
	if point-1 < 0 {
		sign = "-"
	}
	rest := ""
	if k > 1 {
		rest = "." + digits[1:]
	}
	p := point - 1
	if p < 0 {
		p = -p
	}
	return digits[:1] + rest + "e" + sign + strconv.Itoa(p)
}

var endRe = regexp.MustCompile(`[.!?。！？]`)
var spacesRe = regexp.MustCompile(reS + `+`)

// sentenceEnd finds the first full stop: [.!?。！？] before white space or the end, or 。！？ anywhere
// (JavaScript's /[.!?。！？](?=\s|$)|[。！？]/u; Go's expressions have no look-ahead).
func sentenceEnd(s string) int {
	for _, loc := range endRe.FindAllStringIndex(s, -1) {
		mark := s[loc[0]:loc[1]]
		if mark == "。" || mark == "！" || mark == "？" {
			return loc[1]
		}
		if loc[1] == len(s) {
			return loc[1]
		}
		r, _ := utf8.DecodeRuneInString(s[loc[1]:])
		if strings.ContainsRune(jsWS, r) {
			return loc[1]
		}
	}
	return -1
}

const longestSentence = 200

// firstSentence is a text's first sentence, cut from it and never rewritten.
func firstSentence(lines []string) string {
	var words []string
	size := 0
	fenced := false
	for _, raw := range lines {
		line := trim(raw)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fenced = !fenced
			if len(words) > 0 {
				break
			}
			continue
		}
		if fenced || line == "" {
			if len(words) > 0 && !fenced {
				break
			}
			continue
		}
		words = append(words, line)
		size += u16(line)
		if sentenceEnd(line) >= 0 || size >= longestSentence {
			break
		}
	}
	text := spacesRe.ReplaceAllLiteralString(strings.Join(words, " "), " ")
	cut := text
	if stop := sentenceEnd(text); stop >= 0 {
		cut = text[:stop]
	}
	if u16(cut) <= longestSentence || utf8.RuneCountInString(cut) <= longestSentence {
		return cut
	}
	return firstRunes(cut, longestSentence) + "…"
}

// linesOf splits a text into lines; a final line break ends the last line.
func linesOf(text string) []string {
	if text == "" {
		return []string{}
	}
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func lineSpan(start, end int) string {
	if end-start <= 1 {
		return "line " + strconv.Itoa(start+1)
	}
	return "lines " + strconv.Itoa(start+1) + "-" + strconv.Itoa(end)
}

func indentOf(line string) int { return u16(line) - u16(trimStart(line)) }
