// Package fit is Custodian's fitting library for plugin tools written in Go: Weigh (the
// platform's token estimate) and the fitted views of a document, a diff or a JSON value, giving
// the same numbers and the same text as the TypeScript library, held to it by shared vectors.
package fit

import (
	"math"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

const (
	kPunct = iota
	kASCII
	kDigit
	kSpace
	kBreak
	kLatin
	kCyrillic
	kArabic
	kHan
	kKana
	kHangul
	kGreek
	kOther
	kUmlaut
)

var perLetter = [14]float64{0, 0, 0, 0, 0, 0.45, 0.41, 0.72, 1.09, 0.96, 0.86, 0.9, 1.2, 0.45}
var perRun = [14]float64{0, 0, 0, 0, 0, 0.1, 0.71, 0.47, 1.4, 1.4, 0.69, 0.5, 0.5, 0.1}

var asciiCost = [3][17]float64{
	{0, 1, 1, 1.06, 1.07, 2, 1.93, 1.92, 2.05, 2.05, 1.8, 2.3, 2.1, 2.4, 2.8, 2.6, 2.8},
	{0, 1, 1, 1.01, 1.04, 1.45, 1.43, 1.8, 1.97, 2.13, 2.1, 2.5, 2.45, 2.7, 3.3, 3.3, 3.5},
	{0, 1.01, 1.1, 1.12, 1.18, 1.8, 2.1, 2.4, 2.3, 2.5, 2.45, 2.6, 2.5, 3.3, 3.5, 3.4, 3.5},
}

const (
	longWord      = 0.22
	commonMin     = 5
	germanDensity = 100
	germanWords   = 1.27
	moreSegments  = 0.8
	longSegment   = 16
	wsRun         = 64
	wsChars       = 4
)

var commonCost = [3]float64{1.03, 1, 1.35}
var punctCost = [7]float64{0, 1, 1.01, 1.08, 1.16, 1.36, 2.3}

const repeatedMark = 1.0 / 3

var class [65536]uint8

// common holds the hashes of the words cl100k holds whole, an open-addressing table (a slot is
// a hash plus one, 0 empty) at most half full, which answers faster than a map.
var common [1 << 15]uint32

func addCommon(h int32) {
	i := slotOf(h)
	for common[i] != 0 && common[i] != uint32(h)+1 {
		i = (i + 1) & (len(common) - 1)
	}
	common[i] = uint32(h) + 1
}

func slotOf(h int32) int { return int((uint32(h) * 0x9e3779b1) >> (32 - 15)) }

func isCommon(h int32) bool {
	for i := slotOf(h); common[i] != 0; i = (i + 1) & (len(common) - 1) {
		if common[i] == uint32(h)+1 {
			return true
		}
	}
	return false
}

func mark(from, to int, kind uint8) {
	for c := from; c <= to; c++ {
		class[c] = kind
	}
}

func init() {
	mark(0x41, 0x5a, kASCII)
	mark(0x61, 0x7a, kASCII)
	mark(0x30, 0x39, kDigit)
	for _, c := range []int{0x09, 0x0b, 0x0c, 0x20, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff} {
		class[c] = kSpace
	}
	mark(0x2000, 0x200a, kSpace)
	class[0x0a] = kBreak
	class[0x0d] = kBreak
	for _, c := range []int{0xaa, 0xb5, 0xba} {
		class[c] = kLatin
	}
	mark(0xc0, 0x2ff, kLatin)
	class[0xd7] = kPunct
	class[0xf7] = kPunct
	for _, c := range []int{0xc4, 0xd6, 0xdc, 0xdf, 0xe4, 0xf6, 0xfc} {
		class[c] = kUmlaut
	}
	mark(0x1e00, 0x1eff, kLatin)
	mark(0xff21, 0xff3a, kLatin)
	mark(0xff41, 0xff5a, kLatin)
	mark(0xff10, 0xff19, kDigit)
	mark(0x370, 0x3ff, kGreek)
	mark(0x1f00, 0x1fff, kGreek)
	mark(0x400, 0x52f, kCyrillic)
	mark(0x483, 0x489, kPunct)
	mark(0x531, 0x587, kOther)
	mark(0x5d0, 0x5ea, kArabic)
	mark(0x620, 0x64a, kArabic)
	mark(0x660, 0x669, kDigit)
	mark(0x66e, 0x6d3, kArabic)
	class[0x670] = kPunct
	mark(0x6f0, 0x6f9, kDigit)
	mark(0x6fa, 0x6ff, kArabic)
	mark(0x900, 0xdff, kOther)
	mark(0xe00, 0xe7f, kOther)
	mark(0x10a0, 0x10ff, kOther)
	mark(0x1100, 0x11ff, kHangul)
	mark(0x3130, 0x318f, kHangul)
	mark(0xac00, 0xd7a3, kHangul)
	mark(0x3005, 0x3007, kHan)
	mark(0x3041, 0x3096, kKana)
	mark(0x309d, 0x309f, kKana)
	mark(0x30a1, 0x30fa, kKana)
	mark(0x30fc, 0x30ff, kKana)
	mark(0xff66, 0xff9f, kKana)
	mark(0x3400, 0x4dbf, kHan)
	mark(0x4e00, 0x9fff, kHan)
	mark(0xf900, 0xfaff, kHan)
	for _, w := range strings.Fields(commonWords) {
		var h int32
		for i := 0; i < len(w); i++ {
			h = h*31 + int32(w[i]|0x20)
		}
		addCommon(h)
	}
	if n := len(strings.Fields(commonWords)); n > len(common)/2 {
		panic("fit: the common-word table is too small")
	}
}

func isLetter(kind uint8) bool { return kind == kASCII || kind >= kLatin }

func asciiRun(prefix, letters int) float64 {
	costs := &asciiCost[prefix]
	if letters < len(costs) {
		return costs[letters]
	}
	// The explicit conversion keeps the multiply and the add apart (no fused multiply-add), as
	// JavaScript computes them.
	return costs[len(costs)-1] + float64(float64(letters-len(costs)+1)*longWord)
}

func humpOf(hash int32, length, slot int) float64 {
	if length >= commonMin && isCommon(hash) {
		return commonCost[slot]
	}
	return asciiRun(slot, length)
}

// units is a text as JavaScript holds it: UTF-16 code units.
func units(text string, buf []uint16) []uint16 {
	buf = buf[:0]
	for _, r := range text {
		if r >= 0x10000 {
			r -= 0x10000
			buf = append(buf, uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff)))
		} else {
			buf = append(buf, uint16(r))
		}
	}
	return buf
}

// Weigh estimates the tokens a cl100k-class tokenizer makes of text, charging long runs of white
// space by their length; 0 only for the empty string. The seed's toolcost.Count.
func Weigh(text string) int {
	if text == "" {
		return 0
	}
	if isASCII(text) {
		// An ASCII text is its own UTF-16 code units: read in place, not copied (it is never written).
		return weighUnits(unsafe.Slice(unsafe.StringData(text), len(text)))
	}
	buf := buffers.Get().(*[]uint16)
	*buf = units(text, *buf)
	n := weighUnits(*buf)
	buffers.Put(buf)
	return n
}

// buffers are the UTF-16 code units of texts being weighed, kept for the next.
var buffers = sync.Pool{New: func() any { b := make([]uint16, 0, 4096); return &b }}

func isASCII(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// weighUnits is the scan over UTF-16 code units, or over the bytes of an ASCII text.
func weighUnits[T byte | uint16](t []T) int {
	n := len(t)
	total := 0.0
	uncommon := 0.0
	letters := 0
	umlauts := 0
	prefix := 0
	i := 0
	for i < n {
		kind := class[t[i]]
		if isLetter(kind) {
			slot := prefix
			ascii := 0
			extra := 0.0
			lift := 0.0
			var hash, humpHash int32
			inner := 0
			humps := 0
			humpCost := 0.0
			humpLength := 0
			lower := false
			j := i
			for ; j < n; j++ {
				c := t[j]
				k := class[c]
				if k == kASCII {
					upper := c < 0x61
					if upper && lower {
						s := 0
						if humps == 0 {
							s = slot
						}
						humpCost += humpOf(humpHash, humpLength, s)
						humps++
						humpHash = 0
						humpLength = 0
					}
					ascii++
					hash = hash*31 + int32(c|0x20)
					humpHash = humpHash*31 + int32(c|0x20)
					humpLength++
					lower = !upper
					if upper && j > i {
						inner++
					}
				} else if k >= kLatin {
					if k == kUmlaut {
						umlauts++
					}
					extra += perLetter[k]
					if perRun[k] > lift {
						lift = perRun[k]
					}
					lower = false
				} else {
					break
				}
			}
			letters += ascii
			if extra == 0 && humps > 0 {
				total += humpCost + humpOf(humpHash, humpLength, 0)
			} else if extra == 0 && inner == 0 && ascii >= commonMin && isCommon(hash) {
				total += commonCost[slot]
			} else {
				s := slot
				if extra != 0 {
					s = 0
				}
				cost := asciiRun(s, ascii)
				if ascii >= commonMin {
					uncommon += cost
				} else {
					total += cost
				}
				if extra != 0 {
					total += lift + extra
				}
			}
			prefix = 0
			i = j
			continue
		}
		if kind == kDigit {
			j := i + 1
			for j < n && class[t[j]] == kDigit {
				j++
			}
			total += float64((j - i + 2) / 3)
			prefix = 0
			i = j
			continue
		}
		if kind == kSpace || kind == kBreak {
			j := i
			lastBreak := -1
			for ; j < n; j++ {
				k := class[t[j]]
				if k == kBreak {
					lastBreak = j
				} else if k != kSpace {
					break
				}
			}
			pieces := 0
			from := i
			if lastBreak >= 0 {
				pieces = 1
				from = lastBreak + 1
			}
			rest := j - from
			prefix = 0
			if rest > 0 {
				if j < n {
					next := class[t[j]]
					last := t[j-1]
					if isLetter(next) || (next == kPunct && last == 0x20) {
						if rest > 1 {
							pieces++
						}
						prefix = 1
					} else if rest == 1 {
						pieces++
					} else {
						pieces += 2
					}
				} else {
					pieces++
				}
			}
			run := j - i
			if run > wsRun {
				total += float64((run + wsChars - 1) / wsChars)
			} else {
				total += float64(pieces)
			}
			i = j
			continue
		}
		if prefix == 0 && i+1 < n && isLetter(class[t[i+1]]) {
			prefix = 2
			i++
			continue
		}
		segments := 0
		other := 0.0
		long := 0
		last := -1
		from := -1
		j := i
		for ; j < n; j++ {
			c := int(t[j])
			if class[c] != kPunct {
				break
			}
			if c == last && c < 0x80 {
				continue
			}
			if from >= 0 {
				long += (j - from) / longSegment
			}
			from = -1
			if c >= 0x80 {
				if c == last {
					other += repeatedMark
				} else {
					other += 1
				}
			} else {
				segments++
				from = j
			}
			last = c
		}
		if from >= 0 {
			long += (j - from) / longSegment
		}
		for j < n && class[t[j]] == kBreak {
			j++
		}
		top := len(punctCost) - 1
		var base float64
		if segments <= top {
			base = punctCost[segments]
		} else {
			base = punctCost[top] + float64(float64(segments-top)*moreSegments)
		}
		total += base + float64(long) + other
		prefix = 0
		i = j
	}
	if umlauts*germanDensity > letters {
		total += float64(uncommon * germanWords)
	} else {
		total += uncommon
	}
	r := jsRound(total)
	if r < 1 {
		return 1
	}
	return r
}

// jsRound is Math.round: halves round up.
func jsRound(x float64) int {
	f := math.Floor(x)
	if x-f >= 0.5 {
		return int(f) + 1
	}
	return int(f)
}
