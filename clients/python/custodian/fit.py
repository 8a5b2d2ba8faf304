"""Fitting a tool's answer to a token budget, as the Custodian service does.

The same numbers and the same fitted text as the TypeScript library ``custodian/fit``, held to it by
shared vectors. Standard library only, one file: a plugin may copy it.

    from custodian import fit
    f = fit.fit_document(text, view="summary", budget=2000, query="", head=path, name=path)
    answer = {"content": f.text, "fit": f.meta()}

``weigh(text)`` estimates the tokens a cl100k-class tokenizer makes of ``text``, charging long runs of
white space by their length. ``fit_document``, ``fit_diff`` and ``fit_json`` cut the views
(``stub``, ``summary``, ``section``, ``full``). A ``budget``, ``view``, ``chars``, ``head`` or
``name`` of ``None``, ``0`` or ``""`` counts as not given (so ``budget=budget or 0`` means none).
"""

from __future__ import annotations

import math
import re
import struct
from functools import reduce
from itertools import chain, repeat
from operator import add as _add, itemgetter, mul as _mul
from typing import Any, Optional

__all__ = [
    "weigh",
    "count",
    "wanted",
    "fit_document",
    "fit_diff",
    "fit_json",
    "json_lines",
    "lines_of",
    "default_budget",
    "chars_of",
    "count_chars",
    "Fitted",
    "CAP",
    "CAP_CHARS",
    "CHARS_PER_TOKEN",
    "CONTEXT",
    "MIN_BUDGET",
    "MAX_BUDGET",
    "META_KEY",
    "VIEWS",
]

CAP = 50_000
"""At most this many tokens in any fitted answer, whatever the budget."""
CAP_CHARS = 200_000
"""At most this many characters in any fitted answer, whatever the budget."""
CHARS_PER_TOKEN = 8
CONTEXT = 128_000
MIN_BUDGET = 500
MAX_BUDGET = 8_000
META_KEY = "oz0/fit"
"""Where a tool result's ``_meta`` carries the fit note."""
VIEWS = ("stub", "summary", "section", "full")

# ---------------------------------------------------------------------------------------------
# weigh: one pass over the text's pieces (the cuts cl100k's pre-tokenizer makes), each charged a
# cost fitted on a corpus. The costs are those of the TypeScript library, and so is the rounded
# total: summed exactly where that decides it, else by its own float additions in its order.

_PUNCT, _ASCII, _DIGIT, _SPACE, _BREAK, _LATIN, _CYRILLIC, _ARABIC, _HAN, _KANA, _HANGUL, _GREEK, _OTHER, _UMLAUT = range(14)
_PER_LETTER = [0, 0, 0, 0, 0, 0.45, 0.41, 0.72, 1.09, 0.96, 0.86, 0.9, 1.2, 0.45]
_PER_RUN = [0, 0, 0, 0, 0, 0.1, 0.71, 0.47, 1.4, 1.4, 0.69, 0.5, 0.5, 0.1]
_ASCII_COST = [
    [0, 1, 1, 1.06, 1.07, 2, 1.93, 1.92, 2.05, 2.05, 1.8, 2.3, 2.1, 2.4, 2.8, 2.6, 2.8],
    [0, 1, 1, 1.01, 1.04, 1.45, 1.43, 1.8, 1.97, 2.13, 2.1, 2.5, 2.45, 2.7, 3.3, 3.3, 3.5],
    [0, 1.01, 1.1, 1.12, 1.18, 1.8, 2.1, 2.4, 2.3, 2.5, 2.45, 2.6, 2.5, 3.3, 3.5, 3.4, 3.5],
]
_LONG_WORD = 0.22
_COMMON_COST = [1.03, 1, 1.35]
_COMMON_MIN = 5
_GERMAN_DENSITY = 100
_GERMAN_WORDS = 1.27
_PUNCT_COST = [0, 1, 1.01, 1.08, 1.16, 1.36, 2.3]
_MORE_SEGMENTS = 0.8
_LONG_SEGMENT = 16
_REPEATED_MARK = 1 / 3
_WS_RUN = 64
_WS_CHARS = 4


def _classes() -> bytearray:
    # Every code point, so ord() indexes it; above the BMP all is punctuation (surrogate pairs in
    # JavaScript, whose halves are marks).
    cls = bytearray(0x110000)

    def mark(lo: int, hi: int, kind: int) -> None:
        cls[lo : hi + 1] = bytes([kind]) * (hi - lo + 1)

    mark(0x41, 0x5A, _ASCII)
    mark(0x61, 0x7A, _ASCII)
    mark(0x30, 0x39, _DIGIT)
    for c in (0x09, 0x0B, 0x0C, 0x20, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF):
        cls[c] = _SPACE
    mark(0x2000, 0x200A, _SPACE)
    cls[0x0A] = _BREAK
    cls[0x0D] = _BREAK
    for c in (0xAA, 0xB5, 0xBA):
        cls[c] = _LATIN
    mark(0xC0, 0x2FF, _LATIN)
    cls[0xD7] = _PUNCT
    cls[0xF7] = _PUNCT
    for c in (0xC4, 0xD6, 0xDC, 0xDF, 0xE4, 0xF6, 0xFC):
        cls[c] = _UMLAUT
    mark(0x1E00, 0x1EFF, _LATIN)
    mark(0xFF21, 0xFF3A, _LATIN)
    mark(0xFF41, 0xFF5A, _LATIN)
    mark(0xFF10, 0xFF19, _DIGIT)
    mark(0x370, 0x3FF, _GREEK)
    mark(0x1F00, 0x1FFF, _GREEK)
    mark(0x400, 0x52F, _CYRILLIC)
    mark(0x483, 0x489, _PUNCT)
    mark(0x531, 0x587, _OTHER)
    mark(0x5D0, 0x5EA, _ARABIC)
    mark(0x620, 0x64A, _ARABIC)
    mark(0x660, 0x669, _DIGIT)
    mark(0x66E, 0x6D3, _ARABIC)
    cls[0x670] = _PUNCT
    mark(0x6F0, 0x6F9, _DIGIT)
    mark(0x6FA, 0x6FF, _ARABIC)
    mark(0x900, 0xDFF, _OTHER)
    mark(0xE00, 0xE7F, _OTHER)
    mark(0x10A0, 0x10FF, _OTHER)
    mark(0x1100, 0x11FF, _HANGUL)
    mark(0x3130, 0x318F, _HANGUL)
    mark(0xAC00, 0xD7A3, _HANGUL)
    mark(0x3005, 0x3007, _HAN)
    mark(0x3041, 0x3096, _KANA)
    mark(0x309D, 0x309F, _KANA)
    mark(0x30A1, 0x30FA, _KANA)
    mark(0x30FC, 0x30FF, _KANA)
    mark(0xFF66, 0xFF9F, _KANA)
    mark(0x3400, 0x4DBF, _HAN)
    mark(0x4E00, 0x9FFF, _HAN)
    mark(0xF900, 0xFAFF, _HAN)
    return cls


_CLASS = _classes()


def _runs(kinds: "set[int]") -> "list[tuple[int, int]]":
    """The runs of code points (first, last) whose class is in ``kinds``, found by C code."""
    flags = _CLASS[:65536].translate(bytes(1 if k in kinds else 0 for k in range(256)))
    runs = []
    end = 0
    while (start := flags.find(1, end)) >= 0:
        end = flags.find(0, start)
        if end < 0:
            end = len(flags)
        runs.append((start, end - 1))
    return runs


def _char_class(kinds: "set[int]") -> str:
    """A regular-expression character class of the code points whose class is in ``kinds``."""
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in _runs(kinds))


_LETTER_KINDS = frozenset({_ASCII, _LATIN, _CYRILLIC, _ARABIC, _HAN, _KANA, _HANGUL, _GREEK, _OTHER, _UMLAUT})
_LETTERS = _char_class(_LETTER_KINDS)
_DIGITS = _char_class({_DIGIT})
_WHITE = _char_class({_SPACE, _BREAK})
# Every code point falls in exactly one alternative, so the pieces partition the text. A
# punctuation run takes the line breaks after it, as in the TypeScript library.
_HUMPS = re.compile(r"(?<=[a-z])(?=[A-Z])")
_CAMEL = re.compile(r"[a-z][A-Z]")
_PER_LETTER_F = [float(x) for x in _PER_LETTER]
_PER_RUN_F = [float(x) for x in _PER_RUN]


def _hash(word: str) -> int:
    """The TypeScript library's hash of an ASCII word: h = h * 31 + (c | 0x20), in 32 bits, which
    is the sum of each letter times 31 to the power of the letters after it (here by C code)."""
    powers = _POWERS[len(word)] if len(word) < len(_POWERS) else [pow(31, k, 1 << 32) for k in range(len(word) - 1, -1, -1)]
    return sum(map(_mul, word.encode("ascii").translate(_LOWER_BIT), powers)) & 0xFFFFFFFF


_POWERS = [[pow(31, k, 1 << 32) for k in range(n - 1, -1, -1)] for n in range(65)]
_LOWER_BIT = bytes(b | 0x20 for b in range(256))


def _ascii_run(prefix: int, letters: int) -> float:
    costs = _ASCII_COST[prefix]
    return costs[letters] if letters < len(costs) else costs[-1] + (letters - len(costs) + 1) * _LONG_WORD


_COMMON: "set[int]" = set()
# A word's lower-case letters → whether the tokenizer holds it whole (by the same 32-bit hash as
# the TypeScript library, collisions included).
_IS_COMMON: "dict[str, bool]" = {}


def _common(lower: str) -> bool:
    known = _IS_COMMON.get(lower)
    if known is None:
        if len(_IS_COMMON) > 200_000:
            _IS_COMMON.clear()
        known = _IS_COMMON[lower] = _hash(lower) in _COMMON
    return known


def _hump(word: str, slot: int) -> float:
    return _COMMON_COST[slot] if len(word) >= _COMMON_MIN and _common(word.lower()) else _ascii_run(slot, len(word))


def _letter_run(run: str, slot: int) -> "tuple[float, float, float, int, int]":
    """What a letter run adds: (to the total, then again to it, to the uncommon words, ASCII letters, umlauts)."""
    if run.isascii():
        ascii_n = len(run)
        if _CAMEL.search(run):
            humps = _HUMPS.split(run)
            cost = 0.0
            for k, h in enumerate(humps[:-1]):
                cost += _hump(h, slot if k == 0 else 0)
            return (cost + _hump(humps[-1], 0), 0.0, 0.0, ascii_n, 0)
        if ascii_n >= _COMMON_MIN and run[1:].islower() and _common(run.lower()):
            return (_COMMON_COST[slot], 0.0, 0.0, ascii_n, 0)
        cost = _ascii_run(slot, ascii_n)
        return (0.0, 0.0, cost, ascii_n, 0) if ascii_n >= _COMMON_MIN else (cost, 0.0, 0.0, ascii_n, 0)
    kinds = bytes(map(_CLASS.__getitem__, map(ord, run)))
    ascii_n = kinds.count(_ASCII)
    extra = reduce(_add, map(_PER_LETTER_F.__getitem__, kinds), 0.0)
    lift = max(map(_PER_RUN_F.__getitem__, kinds))
    umlauts = kinds.count(_UMLAUT)
    cost = _ascii_run(0, ascii_n)
    if ascii_n >= _COMMON_MIN:
        return (0.0, lift + extra, cost, ascii_n, umlauts)
    return (cost, lift + extra, 0.0, ascii_n, umlauts)


def _punct_run(run: str) -> float:
    segments = 0
    other = 0.0
    long = 0
    last = -1
    start = -1
    j = 0
    for ch in run:
        c = ord(ch)
        if c == 0x0A or c == 0x0D:
            break
        if c == last and c < 0x80:
            j += 1
            continue
        if start >= 0:
            long += (j - start) // _LONG_SEGMENT
        start = -1
        if c > 0xFFFF:
            # Two UTF-16 code units (a surrogate pair), each a mark of its own.
            other += _REPEATED_MARK if 0xD800 + ((c - 0x10000) >> 10) == last else 1
            other += 1
            last = 0xDC00 + ((c - 0x10000) & 0x3FF)
        elif c >= 0x80:
            other += _REPEATED_MARK if c == last else 1
            last = c
        else:
            segments += 1
            start = j
            last = c
        j += 1
    if start >= 0:
        long += (j - start) // _LONG_SEGMENT
    top = len(_PUNCT_COST) - 1
    base = _PUNCT_COST[segments] if segments <= top else _PUNCT_COST[top] + (segments - top) * _MORE_SEGMENTS
    return base + long + other


_SP = _char_class({_SPACE})
# The text is cut into tokens whose cost depends on nothing around them, so each token's
# additions are reckoned once and summed by C code (see _Units). A token is a piece of the
# TypeScript library's scan with what opens it: white space and the word its last space opens,
# white space and the punctuation its last plain space opens, a mark and the word it opens, or a
# piece alone.
# Punctuation by its own ranges rather than as "not a letter, digit or space": the regular
# expression compiler walks a class code point by code point, and this one is half the size.
_PBMP = f"[{_char_class({_PUNCT})}]"
_P = f"{_PBMP[:-1]}\U00010000-\U0010ffff]"
_TOKENS = re.compile(
    f"[{_WHITE}]*[{_SP}][{_LETTERS}]+"
    f"|[{_WHITE}]* {_P}+[\\n\\r]*"
    f"|{_PBMP}[{_LETTERS}]+"
    f"|[{_WHITE}]+"
    f"|[{_DIGITS}]+"
    f"|[{_LETTERS}]+"
    f"|{_P}+[\\n\\r]*"
)
_WHITE_CHARS = "".join(chr(c) for a, b in _runs({_SPACE, _BREAK}) for c in range(a, b + 1))
_IS_WHITE = frozenset(_WHITE_CHARS)


def _white(run: str, opens: bool) -> int:
    """What a white-space run costs; ``opens``: its last space opens the next piece."""
    n = len(run)
    if n > _WS_RUN:
        return -(-n // _WS_CHARS)
    lb = max(run.rfind("\n"), run.rfind("\r"))
    rest = n - (lb + 1)
    pieces = 1 if lb >= 0 else 0
    if rest > 0:
        pieces += (1 if rest > 1 else 0) if opens else (1 if rest == 1 else 2)
    return pieces


def _white_at_end(run: str) -> int:
    n = len(run)
    if n > _WS_RUN:
        return -(-n // _WS_CHARS)
    lb = max(run.rfind("\n"), run.rfind("\r"))
    return (1 if lb >= 0 else 0) + (1 if n - (lb + 1) > 0 else 0)


def _word(run: str, slot: int, before: "tuple[float, ...]") -> "tuple[tuple[float, ...], tuple[float, ...], int, int]":
    t1, t2, unc, ascii_n, umlauts = _letter_run(run, slot)
    if t1:
        before += (t1, t2) if t2 else (t1,)
    elif t2:
        before += (t2,)
    return (before, (unc,) if unc else (), ascii_n, umlauts)


def _token_cost(token: str) -> "tuple[tuple[float, ...], tuple[float, ...], int, int]":
    first = _CLASS[ord(token[0])]
    if first == _SPACE or first == _BREAK:
        i = len(token) - len(token.lstrip(_WHITE_CHARS))
        if i == len(token):
            c = _white(token, False)
            return ((c,) if c else (), (), 0, 0)
        c = _white(token[:i], True)
        before = (c,) if c else ()
        if _CLASS[ord(token[i])] != _PUNCT:
            return _word(token[i:], 1, before)
        return (before + (_punct_run(token[i:]),), (), 0, 0)
    if first == _DIGIT:
        return ((-(-len(token) // 3),), (), 0, 0)
    if first == _PUNCT:
        if len(token) > 1 and _CLASS[ord(token[1])] not in (_PUNCT, _SPACE, _BREAK, _DIGIT):
            return _word(token[1:], 2, ())
        return ((_punct_run(token),), (), 0, 0)
    return _word(token, 0, ())


# A text's costs are summed by C code (sum over a dict's answers), not one float at a time: each
# token's costs once, as a whole number of 2**-32 (its _UNITS), and the sum rounded from that when
# it lies clearly off a half; the rare sum near one is added again as floats in the TypeScript
# library's order (_weigh_in_order), so the answer is always that library's.
_UNIT = 32
_ONE = 1 << _UNIT
_HALF = _ONE >> 1
# A token adds at most four costs (white space, a word's two and its uncommon part).
_COSTS_PER_TOKEN = 4


class _Units(dict):
    """A token → its costs in units; beside it _UNCOMMON_UNITS: the part of them that is uncommon words."""

    def __missing__(self, token: str) -> int:
        if token.isascii():
            # The most common tokens by a shorter way: digits, and an ASCII word bare or after one
            # space or one mark (what _token_cost reckons for them, in units).
            if token.isdigit():
                units = self[token] = -(-len(token) // 3) << _UNIT
                return units
            if token.isalpha():
                return self._word(token, token, 0)
            word = token[1:]
            if word.isalpha():
                if token[0] == " ":
                    return self._word(token, word, 1)
                if _CLASS[ord(token[0])] == _PUNCT:
                    return self._word(token, word, 2)
            word = token.lstrip(_WHITE_CHARS)
            if word and len(word) < len(token) and word.isalpha():
                units = self[token] = self._word(token, word, 1) + _white(token[: len(token) - len(word)], True) * _ONE
                return units
        adds, uncommon, letters, umlauts = _token_cost(token)
        units = 0
        for x in adds:
            units += round(x * _ONE)
        if uncommon:
            u = _UNCOMMON_UNITS[token] = round(uncommon[0] * _ONE)
            units += u
        self[token] = units
        return units


    def _word(self, token: str, word: str, slot: int) -> int:
        n = len(word)
        # Only the first letter may be upper case: no camelCase hump, and maybe a common word.
        plain = word[1:].islower()
        if not plain and n > 1 and _CAMEL.search(word):
            units = self[token] = round(_letter_run(word, slot)[0] * _ONE)
        elif n < _COMMON_MIN:
            units = self[token] = _ASCII_UNITS[slot][n]
        elif plain and _common(word.lower()):
            units = self[token] = _COMMON_UNITS[slot]
        else:
            units = self[token] = _UNCOMMON_UNITS[token] = _ASCII_UNITS[slot][n] if n < _TABLED else round(_ascii_run(slot, n) * _ONE)
        return units


_TABLED = 64
_COMMON_UNITS = [round(c * _ONE) for c in _COMMON_COST]
_ASCII_UNITS = [[round(_ascii_run(slot, n) * _ONE) for n in range(_TABLED)] for slot in range(3)]
_UNITS = _Units()
_UNCOMMON_UNITS: "dict[str, int]" = {}
_NOT_ASCII_LETTERS = bytes(b for b in range(128) if not chr(b).isalpha())
_ADDS = itemgetter(0)
_UNCOMMON = itemgetter(1)
_LETTER_COUNT = itemgetter(2)
_UMLAUT_COUNT = itemgetter(3)
_GERMAN_RATIO = _GERMAN_WORDS.as_integer_ratio()
_UMLAUT_LETTERS = "ÄÖÜßäöü"
_UMLAUTS = re.compile(f"[{_UMLAUT_LETTERS}]")


def weigh(text: str) -> int:
    """Estimated cl100k tokens of ``text``; 0 only for the empty string. Pure and deterministic."""
    if not text:
        return 0
    if len(_UNITS) > 500_000:
        _UNITS.clear()
        _UNCOMMON_UNITS.clear()
        _IS_COMMON.clear()
    tokens = _TOKENS.findall(text)
    n = sum(map(_UNITS.__getitem__, tokens))
    last = tokens[-1]
    if last[-1] in _IS_WHITE and not last.strip(_WHITE_CHARS):
        n += _white_at_end(last) * _ONE - _UNITS[last]
    num = den = 1
    if not text.isascii() and _UMLAUTS.search(text) is not None:
        # Every umlaut and every ASCII letter is in some letter run: counted in the text itself.
        umlauts = sum(map(text.count, _UMLAUT_LETTERS))
        letters = len(text.encode("ascii", "ignore").translate(None, _NOT_ASCII_LETTERS))
        if umlauts * _GERMAN_DENSITY > letters:
            # The uncommon words weigh more: (total - uncommon) + uncommon * GERMAN_WORDS.
            num, den = _GERMAN_RATIO
            uncommon = sum(map(_UNCOMMON_UNITS.get, tokens, repeat(0)))
            n = (n - uncommon) * den + uncommon * num
    rounded = _round_clearly(n, den << _UNIT, len(tokens), den)
    return max(1, rounded) if rounded is not None else _weigh_in_order(tokens)


def _round_clearly(n: int, d: int, tokens: int, den: int) -> "Optional[int]":
    """Math.round of the float sum the TypeScript library makes, from ``n / d``: the same costs
    each rounded to a unit and summed exactly. None when that lies so close to a half that the
    units' rounding (half a unit a cost, twice over for the uncommon part) or the float sum's own
    error (at most an addition's count times 2**-53 of the sum, taken as 2**-51) could tip it.
    """
    additions = _COSTS_PER_TOKEN * tokens + 8
    slack = 2 * additions * den + (additions * (n + d) >> 51) + 1
    if abs(2 * (n % d) - d) <= 2 * slack:
        return None
    return (n + d // 2) // d


def _weigh_in_order(tokens: "list[str]") -> int:
    """weigh by the TypeScript library's own float additions, in its order (the slow, sure way)."""
    costs = list(map(_token_cost, tokens))
    last = tokens[-1]
    if last[-1] in _IS_WHITE and not last.strip(_WHITE_CHARS):
        costs[-1] = ((_white_at_end(last),), (), 0, 0)
    total = reduce(_add, chain.from_iterable(map(_ADDS, costs)), 0.0)
    uncommon = reduce(_add, chain.from_iterable(map(_UNCOMMON, costs)), 0.0)
    german = sum(map(_UMLAUT_COUNT, costs)) * _GERMAN_DENSITY > sum(map(_LETTER_COUNT, costs))
    total += uncommon * _GERMAN_WORDS if german else uncommon
    return max(1, _js_round(total))


def _js_round(x: float) -> int:
    """Math.round: halves round up (towards +infinity)."""
    f = math.floor(x)
    return f + 1 if x - f >= 0.5 else f


count = weigh
"""The seed's name for ``weigh``."""


# ---------------------------------------------------------------------------------------------
# Text as JavaScript sees it: white space, trimming, UTF-16 lengths, numbers and JSON.

_WS = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_S = "[" + re.escape(_WS) + "]"
# JavaScript's `.`: anything but a line terminator.
_DOT = "[^\\n\\r\\u2028\\u2029]"
_SURROGATE = re.compile("[\ud800-\udfff]")


def _trim(s: str) -> str:
    return s.strip(_WS)


def _u16(s: str) -> int:
    """The length JavaScript gives a string: UTF-16 code units."""
    return len(s) if s.isascii() else len(s.encode("utf-16-le", "surrogatepass")) // 2


def count_chars(text: str) -> int:
    """Characters as a reader counts them: code points, so an emoji is one."""
    if _SURROGATE.search(text) is None:
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass"))


def _n(x: int) -> str:
    return f"{x:,}"


def _js_number(x: float) -> str:
    """Number.prototype.toString for a finite number."""
    if x == 0:
        return "0"
    if x < 0:
        return "-" + _js_number(-x)
    r = repr(x)
    mantissa, _, exp = r.partition("e")
    whole, _, frac = mantissa.partition(".")
    if frac == "0":
        frac = ""
    digits = (whole + frac).lstrip("0")
    point = len(whole) + (int(exp) if exp else 0)
    if whole == "0":
        stripped = frac.lstrip("0")
        point = -(len(frac) - len(stripped)) + (int(exp) if exp else 0)
        digits = stripped
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= point <= 21:
        return digits + "0" * (point - k)
    if 0 < point <= 21:
        return digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return "0." + "0" * (-point) + digits
    e = point - 1
    return digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\ud800-\udfff]')
_INDEX_KEY = re.compile(r"(?:0|[1-9][0-9]*)\Z")


def _js_string(s: str) -> str:
    def one(m: "re.Match[str]") -> str:
        ch = m.group(0)
        return _ESCAPES.get(ch) or f"\\u{ord(ch):04x}"

    return '"' + _NEEDS_ESCAPE.sub(one, s) + '"'


def _entries(value: dict) -> "list[tuple[str, Any]]":
    """Object.entries order: integer keys (array indices) first, ascending, then the rest as written."""
    items = [(k if isinstance(k, str) else _key_text(k), v) for k, v in value.items()]
    index = [(k, v) for k, v in items if _INDEX_KEY.match(k) and int(k) < 4294967295]
    if not index:
        return items
    index.sort(key=lambda kv: int(kv[0]))
    return index + [(k, v) for k, v in items if not (_INDEX_KEY.match(k) and int(k) < 4294967295)]


def _key_text(k: Any) -> str:
    if isinstance(k, bool):
        return "true" if k else "false"
    if isinstance(k, (int, float)):
        return _js_scalar(k)
    if k is None:
        return "null"
    raise TypeError(f"a JSON object's key must be a string, not {type(k).__name__}")


def _js_scalar(v: Any) -> str:
    if isinstance(v, int):
        if -(2**53) < v < 2**53:
            return str(v)
        try:
            v = float(v)
        except OverflowError:
            return "null"
    if math.isnan(v) or math.isinf(v):
        return "null"
    return _js_number(v)


def _json(v: Any) -> str:
    """JSON.stringify(v) with no spacing, as the TypeScript library writes it."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return _js_string(v)
    if isinstance(v, (int, float)):
        return _js_scalar(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_json(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(_js_string(k) + ":" + _json(x) for k, x in _entries(v)) + "}"
    raise TypeError(f"not JSON data: {type(v).__name__}")


# ---------------------------------------------------------------------------------------------
# Bounds, the default budget, and whether a call asked for fitting.


def chars_of(budget: int) -> int:
    """The characters a budget allows: 8 per token."""
    return budget * CHARS_PER_TOKEN


def default_budget(used: float = 0, warned: bool = False) -> int:
    """A quarter of what ``used`` leaves of a 128,000-token context, 500 to 8,000; half once ``warned``."""
    spent = used if isinstance(used, (int, float)) and math.isfinite(used) and used > 0 else 0
    left = max(0, CONTEXT - spent)
    budget = min(MAX_BUDGET, max(MIN_BUDGET, math.floor(left / 4)))
    return budget // 2 if warned else budget


def wanted(view: Optional[str] = None, budget: Optional[int] = None, query: Optional[str] = None) -> bool:
    """Whether a call asked for fitting at all: any of view, budget or query."""
    return view is not None or budget is not None or (query is not None and query != "")


def _budget(budget: Any) -> Optional[int]:
    if budget is None or budget == 0 or budget == math.inf:
        return None
    return math.floor(budget) if isinstance(budget, (int, float)) and math.isfinite(budget) and budget > 0 else 0


class _Bound:
    __slots__ = ("name", "unit", "limit", "phrase")

    def __init__(self, name: str, unit: str, limit: int, phrase: str) -> None:
        self.name, self.unit, self.limit, self.phrase = name, unit, limit, phrase


def _bounds_of(budget: Optional[int], chars: Optional[int]) -> "list[_Bound]":
    bounds = [_Bound("CAP", "tokens", CAP, f"the cap of {_n(CAP)} tokens (CAP)")]
    if budget is not None:
        bounds.append(_Bound("budget", "tokens", budget, f"the budget of {_n(budget)} tokens"))
        c = chars_of(budget)
        bounds.append(
            _Bound("charsOf", "characters", c, f"the {_n(c)} characters a budget of {_n(budget)} tokens allows (charsOf: {CHARS_PER_TOKEN} per token)")
        )
    bounds.append(_Bound("CAP_CHARS", "characters", CAP_CHARS, f"the cap of {_n(CAP_CHARS)} characters (CAP_CHARS)"))
    if chars is not None:
        c = math.floor(chars) if math.isfinite(chars) and chars > 0 else 0
        bounds.append(_Bound("chars", "characters", c, f"the caller's bound of {_n(c)} characters (chars)"))
    bounds.sort(key=lambda b: (0 if b.unit == "tokens" else 1, b.limit))
    return bounds


def _measure(text: str) -> "tuple[int, int]":
    return (weigh(text), count_chars(text))


def _broken(bounds: "list[_Bound]", size: "tuple[int, int]") -> "list[_Bound]":
    out = []
    tokens = next((b for b in bounds if b.unit == "tokens" and size[0] > b.limit), None)
    chars = next((b for b in bounds if b.unit == "characters" and size[1] > b.limit), None)
    if tokens:
        out.append(tokens)
    if chars:
        out.append(chars)
    return out


def _phrase(bounds: "list[_Bound]") -> str:
    return " and ".join(b.phrase for b in bounds)


# ---------------------------------------------------------------------------------------------
# Shapes: a whole cut into parts.


class _Part:
    __slots__ = ("title", "outline", "summary", "spans", "names", "hidden")

    def __init__(self, title: str, outline: str, summary: str, spans: "list[tuple[int, int]]", names: "list[str]", hidden: bool = False) -> None:
        self.title, self.outline, self.summary, self.spans, self.names, self.hidden = title, outline, summary, spans, names, hidden


class _Shape:
    __slots__ = ("kind", "full", "lines", "parts", "facts", "queries")

    def __init__(self, kind: str, full: str, lines: "list[str]", parts: "list[_Part]", facts: str, queries: str) -> None:
        self.kind, self.full, self.lines, self.parts, self.facts, self.queries = kind, full, lines, parts, facts, queries


def lines_of(text: str) -> "list[str]":
    """The lines of a text; a final line break ends the last line rather than starting another."""
    if text == "":
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _line_span(start: int, end: int) -> str:
    return f"line {start + 1}" if end - start <= 1 else f"lines {start + 1}-{end}"


_END = re.compile(f"[.!?。！？](?={_S}|\\Z)|[。！？]")
_SPACES = re.compile(f"{_S}+")
_LONGEST_SENTENCE = 200


def _first_sentence(lines: "list[str]") -> str:
    words: "list[str]" = []
    size = 0
    fenced = False
    for raw in lines:
        line = _trim(raw)
        if line.startswith("```") or line.startswith("~~~"):
            fenced = not fenced
            if words:
                break
            continue
        if fenced or line == "":
            if words and not fenced:
                break
            continue
        words.append(line)
        size += _u16(line)
        if _END.search(line) or size >= _LONGEST_SENTENCE:
            break
    text = _SPACES.sub(" ", " ".join(words))
    stop = _END.search(text)
    cut = text[: stop.end()] if stop else text
    if _u16(cut) <= _LONGEST_SENTENCE:
        return cut
    return cut if len(cut) <= _LONGEST_SENTENCE else cut[:_LONGEST_SENTENCE] + "…"


_HEADING = re.compile(f"(#{{1,6}})[ \\t]+({_DOT}+?)(?:[ \\t]+#+)?[ \\t]*\\r?\\Z")
_FENCE = re.compile(f"{_S}*(```|~~~)")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*\r?\Z")
_NOT_SETEXT = re.compile(f"{_S}*([-*+>|]|[0-9]+[.)])({_S}|\\Z)| {{4}}|{_S}*(---|===)")
_TS_DEFINITION = re.compile(
    r"(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(?:async[ \t]+)?"
    r"(function\*?|class|const|let|var|interface|type|enum|namespace)[ \t]+([A-Za-z_$][A-Za-z0-9_$]*)"
)
_PY_DEFINITION = re.compile(r"([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
_CLOSER = re.compile(r"[)\]}]")
_LEADING = re.compile(r"(@|//|/\*|\*|#)")
_COMMENT_MARK = re.compile(f"\\A(/\\*\\*?|\\*/|\\*|//|#){_S}?")
_DOC_OPEN = re.compile(r"\A(\"\"\"|''')")
_DOC_CLOSE = re.compile(r"(\"\"\"|''')\Z")
_RUN = 40


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(_WS))


def _blank(line: str) -> bool:
    return _trim(line) == ""


def _markdown_parts(lines: "list[str]") -> "Optional[list[_Part]]":
    heads: "list[tuple[int, int, int, str]]" = []
    fenced = False
    at = 0
    while at < len(lines):
        line = lines[at]
        fence = _FENCE.match(line) is not None
        if fence:
            fenced = not fenced
        if fenced or fence:
            at += 1
            continue
        m = _HEADING.match(line)
        if m:
            heads.append((at, at + 1, len(m.group(1)), _trim(m.group(2))))
        elif not _blank(line) and not _NOT_SETEXT.match(line) and at + 1 < len(lines):
            under = _SETEXT.match(lines[at + 1])
            if under:
                heads.append((at, at + 2, 1 if under.group(1).startswith("=") else 2, _trim(line)))
                at += 1
        at += 1
    if not heads:
        return None
    parts: "list[_Part]" = []
    top = heads[0][0]
    if any(not _blank(l) for l in lines[:top]):
        parts.append(
            _Part("(before the first heading)", f"(before the first heading, {_line_span(0, top)})", _first_sentence(lines[:top]), [(0, top)], [])
        )
    ends = [0] * len(heads)
    stack: "list[int]" = []
    for k in range(len(heads) - 1, -1, -1):
        while stack and heads[stack[-1]][2] > heads[k][2]:
            stack.pop()
        ends[k] = heads[stack[-1]][0] if stack else len(lines)
        stack.append(k)
    for k, (h_at, h_body, level, title) in enumerate(heads):
        end = ends[k]
        own = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        mark = "#" * level + " " + title
        sentence = _first_sentence(lines[h_body:own])
        parts.append(_Part(title, f"{mark} ({_line_span(h_at, end)})", f"{mark}: {sentence}" if sentence else mark, [(h_at, end)], [title, mark]))
    return parts


def _definition_end(lines: "list[str]", at: int, indent: int) -> int:
    end = at + 1
    for j in range(at + 1, len(lines)):
        line = lines[j]
        if _blank(line):
            continue
        if _indent(line) > indent:
            end = j + 1
        elif _CLOSER.match(line.lstrip(_WS)):
            end = j + 1
        else:
            break
    return end


def _definition_start(lines: "list[str]", at: int, indent: int, floor: int) -> int:
    def leads(line: str) -> bool:
        trimmed = _trim(line)
        return _LEADING.match(trimmed) is not None and (_indent(line) == indent or (trimmed.startswith("*") and _indent(line) == indent + 1))

    start = at
    while start - 1 >= floor and leads(lines[start - 1]):
        start -= 1
    return start


def _doc_of(lines: "list[str]", start: int, at: int, end: int) -> str:
    above = [_COMMENT_MARK.sub("", _trim(l), count=1) for l in lines[start:at]]
    above = [l for l in above if not l.startswith("@")]
    if any(_trim(l) != "" for l in above):
        return _first_sentence(above)
    body = [_trim(l) for l in lines[at + 1 : min(end, at + 8)]]
    doc = next((i for i, l in enumerate(body) if l.startswith('"""') or l.startswith("'''")), -1)
    if doc >= 0 and all(l == "" for l in body[:doc]):
        return _first_sentence([_DOC_CLOSE.sub("", _DOC_OPEN.sub("", l, count=1), count=1) for l in body[doc:]])
    return ""


def _code_parts(lines: "list[str]") -> "Optional[list[_Part]]":
    parts: "list[_Part]" = []
    floor = 0
    for at, line in enumerate(lines):
        ts = _TS_DEFINITION.match(line)
        py = None if ts else _PY_DEFINITION.match(line)
        indent = 0 if ts else len(py.group(1)) if py else -1
        if indent < 0 or indent > 4:
            continue
        name = ts.group(2) if ts else py.group(3)  # type: ignore[union-attr]
        keyword = ts.group(1) if ts else py.group(2)  # type: ignore[union-attr]
        start = _definition_start(lines, at, indent, floor)
        end = _definition_end(lines, at, indent)
        doc = _doc_of(lines, start, at, end)
        pad = "  " if indent > 0 else ""
        parts.append(
            _Part(name, f"{pad}{keyword} {name} ({_line_span(start, end)})", f"{pad}{_trim(line)}{' — ' + doc if doc else ''}", [(start, end)], [name])
        )
        if indent == 0:
            floor = at + 1
    return parts or None


def _text_parts(lines: "list[str]") -> "list[_Part]":
    parts: "list[_Part]" = []
    at = 0
    while at < len(lines):
        while at < len(lines) and _blank(lines[at]):
            at += 1
        if at >= len(lines):
            break
        end = at
        while end < len(lines) and not _blank(lines[end]) and end - at < _RUN:
            end += 1
        span = _line_span(at, end)
        parts.append(_Part(span, span, f"{span}: {_first_sentence(lines[at:end])}", [(at, end)], []))
        at = end
    return parts


_EXT = re.compile(r"\.([A-Za-z0-9]+)\Z")


def _by_name(name: Optional[str]) -> Optional[str]:
    m = _EXT.search(name or "")
    if m is None:
        return None
    ext = m.group(1).lower()
    if ext in ("md", "markdown", "mdx"):
        return "markdown"
    if ext in ("ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts", "py", "pyi"):
        return "code"
    return None


def _shape_document(text: str, name: Optional[str]) -> _Shape:
    lines = lines_of(text)
    hint = _by_name(name)
    code = None if hint == "markdown" else _code_parts(lines)
    markdown = None if code else _markdown_parts(lines)
    if code:
        kind, parts, queries = "code", code, "a definition's name (a function, class or const) or a line range such as 120-180"
    elif markdown:
        kind, parts, queries = "Markdown", markdown, "a heading or a line range such as 120-180"
    else:
        kind, parts, queries = "text", _text_parts(lines), "a line range such as 120-180"
    count_ = len(parts)
    unit = "definition" if kind == "code" else "part" if kind == "Markdown" else "run of lines"
    plural = "runs of lines" if kind == "text" else unit + "s"
    return _Shape(kind, text, lines, parts, f"{count_} {unit if count_ == 1 else plural}", queries)


_GIT = re.compile(f"diff --git a/({_DOT}*?) b/({_DOT}*?)\\r?\\Z")
_OLD = re.compile(f"--- (?:a/)?({_DOT}*?)(?:\\t{_DOT}*)?\\r?\\Z")
_NEW = re.compile(f"\\+\\+\\+ (?:b/)?({_DOT}*?)(?:\\t{_DOT}*)?\\r?\\Z")
_HUNK = re.compile(r"@@ -[0-9]+(?:,([0-9]+))? \+[0-9]+(?:,([0-9]+))? @@")


class _File:
    __slots__ = ("start", "header_end", "end", "path", "old", "added", "removed", "hunks")

    def __init__(self, at: int, path: str) -> None:
        self.start, self.header_end, self.end = at, at + 1, at + 1
        self.path = self.old = path
        self.added = self.removed = 0
        self.hunks: "list[tuple[int, int]]" = []


def _parse_diff(lines: "list[str]") -> "tuple[list[_File], int]":
    files: "list[_File]" = []
    preamble = len(lines)
    current: Optional[_File] = None
    i = 0
    while i < len(lines):
        line = lines[i]
        git = _GIT.match(line)
        if git:
            if not files:
                preamble = i
            current = _File(i, git.group(2))
            current.old = git.group(1)
            files.append(current)
            i += 1
            continue
        old = _OLD.match(line)
        neu = _NEW.match(lines[i + 1]) if i + 1 < len(lines) else None
        if old and neu:
            if current is not None and not current.hunks and current.header_end == i:
                f = current
            else:
                if not files:
                    preamble = i
                f = current = _File(i, neu.group(1))
                files.append(f)
            f.old = neu.group(1) if old.group(1) == "/dev/null" else old.group(1)
            f.path = f.old if neu.group(1) == "/dev/null" else neu.group(1)
            f.header_end = f.end = i + 2
            i += 2
            continue
        hunk = _HUNK.match(line)
        if hunk and current is not None:
            olds = 1 if hunk.group(1) is None else int(hunk.group(1))
            news = 1 if hunk.group(2) is None else int(hunk.group(2))
            j = i + 1
            while j < len(lines) and (olds > 0 or news > 0 or lines[j].startswith("\\")):
                c = lines[j][:1]
                if c == "-":
                    olds -= 1
                    current.removed += 1
                elif c == "+":
                    news -= 1
                    current.added += 1
                elif c != "\\":
                    olds -= 1
                    news -= 1
                j += 1
            current.hunks.append((i, j))
            current.end = j
            i = j
            continue
        if current is not None and not current.hunks:
            current.header_end = current.end = i + 1
        elif current is not None:
            current.end = i + 1
        i += 1
    return files, preamble


def _shape_diff(diff: str) -> _Shape:
    lines = lines_of(diff)
    files, preamble = _parse_diff(lines)
    parts: "list[_Part]" = []
    if any(_trim(l) != "" for l in lines[:preamble]):
        parts.append(
            _Part("(before the first file)", f"(before the first file, {_line_span(0, preamble)})", _first_sentence(lines[:preamble]), [(0, preamble)], [])
        )
    added = removed = 0
    for f in files:
        added += f.added
        removed += f.removed
        counts = f"+{f.added} −{f.removed}, {len(f.hunks)} {'hunk' if len(f.hunks) == 1 else 'hunks'}"
        names = [f.path, f.old] if f.old != f.path else [f.path]
        summary = "\n".join([f"{f.path} ({counts})"] + [f"  {_trim(lines[s])}" for s, _ in f.hunks])
        moved = f" (from {f.old})" if f.old != f.path else ""
        parts.append(_Part(f.path, f"{f.path}{moved} ({counts}, {_line_span(f.start, f.end)})", summary, [(f.start, f.end)], names))
        for k, (s, e) in enumerate(f.hunks):
            parts.append(_Part(f"{f.path}#{k + 1}", "", "", [(f.start, f.header_end), (s, e)], [f"{p}#{k + 1}" for p in names], True))
    return _Shape(
        "diff",
        diff,
        lines,
        parts,
        f"{len(files)} {'file' if len(files) == 1 else 'files'}, +{added} −{removed} lines",
        "a path, <path>#<n> for its n-th hunk, or a line range such as 120-180",
    )


def json_lines(value: Any) -> str:
    """The lines form of a JSON value: one indented line per top-level key or item."""
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        last = len(value) - 1
        return "\n".join(["["] + [f"  {_json(v)}{',' if i < last else ''}" for i, v in enumerate(value)] + ["]"])
    if isinstance(value, dict):
        entries = _entries(value)
        if not entries:
            return "{}"
        last = len(entries) - 1
        return "\n".join(["{"] + [f"  {_js_string(k)}: {_json(v)}{',' if i < last else ''}" for i, (k, v) in enumerate(entries)] + ["}"])
    return _json(value)


_LONGEST_GIST = 120


def _cut(text: str) -> str:
    return text if _u16(text) <= _LONGEST_GIST else text[:_LONGEST_GIST] + "…"


def _describe(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return f"array of {len(value)} {'item' if len(value) == 1 else 'items'}"
    if value is None:
        return "null"
    if isinstance(value, dict):
        keys = [k for k, _ in _entries(value)]
        shown = ", ".join(keys[:6])
        more = ", …" if len(keys) > 6 else ""
        return f"object with {len(keys)} {'key' if len(keys) == 1 else 'keys'}{': ' + shown + more if keys else ''}"
    if isinstance(value, str):
        return f"string of {len(value)} characters"
    return _json(value)


def _gist(value: Any) -> str:
    return _js_string(_first_sentence([value]) or _cut(value)) if isinstance(value, str) else _cut(_json(value))


def _shape_json(value: Any) -> _Shape:
    full = json_lines(value)
    lines = lines_of(full)
    parts: "list[_Part]" = []
    kind = "JSON value"
    facts = _describe(value)
    if isinstance(value, (list, tuple)) and value:
        kind = "JSON array"
        facts = f"{len(value)} {'item' if len(value) == 1 else 'items'}"
        for i, v in enumerate(value):
            parts.append(_Part(f"[{i}]", f"[{i}] {_describe(v)} (line {i + 2})", f"  [{i}] {_gist(v)}", [(i + 1, i + 2)], [f"[{i}]"]))
    elif isinstance(value, dict):
        entries = _entries(value)
        kind = "JSON object"
        facts = f"{len(entries)} {'key' if len(entries) == 1 else 'keys'}"
        for i, (k, v) in enumerate(entries):
            key = _js_string(k)
            parts.append(_Part(k, f"{key}: {_describe(v)} ({_line_span(i + 1, i + 2)})", f"  {key}: {_gist(v)}", [(i + 1, i + 2)], [k, key]))
    return _Shape(kind, full, lines, parts, facts, "a top-level key, an item such as [3], or a line range such as 120-180")


# ---------------------------------------------------------------------------------------------
# Sections and views.

_RANGE = re.compile(f"{_S}*([0-9]+){_S}*(?:-|–|\\.\\.){_S}*([0-9]+){_S}*\\Z")


def _merge(spans: "list[tuple[int, int]]") -> "list[list[int]]":
    out: "list[list[int]]" = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def _select_section(shape: _Shape, query: str) -> "Optional[tuple[str, str]]":
    m = _RANGE.match(query)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        lo, hi = min(a, b), max(a, b)
        if lo < 1 or lo > len(shape.lines):
            return None
        to = min(hi, len(shape.lines))
        return "\n".join(shape.lines[lo - 1 : to]), f"{_line_span(lo - 1, to)} of {len(shape.lines)}"
    name = _trim(query)
    want = name.lower()
    if want == "":
        return None

    def named(pick: Any) -> "list[_Part]":
        return [p for p in shape.parts if any(pick(n.lower()) for n in p.names)]

    parts = named(lambda n: n == want)
    if not parts:
        parts = named(lambda n: n.endswith("/" + want))[:1]
    if not parts:
        parts = named(lambda n: want in n)[:1]
    if not parts:
        return None
    spans = _merge([s for p in parts for s in p.spans])
    text = "\n".join("\n".join(shape.lines[s:e]) for s, e in spans)
    return text, f"the section matching '{name}' ({', '.join(_line_span(s, e) for s, e in spans)})"


class Fitted:
    """A fitted answer: ``text`` to answer with and ``fit``, its note (``None`` when unfitted)."""

    __slots__ = ("text", "fit")

    def __init__(self, text: str, fit: "Optional[dict[str, Any]]") -> None:
        self.text = text
        self.fit = fit

    def meta(self) -> "Optional[dict[str, Any]]":
        """The fit note, for the answer's ``fit`` field and the result's ``_meta`` under ``META_KEY``."""
        return None if self.fit is None else dict(self.fit)

    def __repr__(self) -> str:
        return f"Fitted(text={self.text[:40]!r}…, fit={self.fit!r})"


_ORDER = ("full", "section", "summary", "stub")


def _view_phrase(view: str, query: Optional[str]) -> str:
    if view == "full":
        return "the whole"
    if view == "section":
        return f"the section matching '{query}'"
    return "the summary" if view == "summary" else "the stub"


def _omitted(s: "dict[str, Any]") -> str:
    view = s["view"]
    if view == "full":
        return "Nothing was left out."
    rest = f"{_n(max(0, s['size'] - s['tokens']))} tokens"
    reasons = []
    if s["missing"] == "no_query":
        reasons.append("no query named a section")
    if s["missing"] == "no_match":
        reasons.append(f"nothing in it matches the query '{s['query']}'")
    refused = s["refused"]
    if refused:
        reasons.append(f"{_view_phrase(refused[0], s['query'])} ({_n(refused[1])} tokens) is over {_phrase(refused[2])}")
    if reasons:
        why = " because " + ", and ".join(reasons)
    elif view == "section":
        why = ", as the query asked for this part only"
    else:
        why = f', as view "{view}" was asked for'
    name = s["name"]
    if view == "section":
        return f"This is {s['section']} of {name}; the rest ({rest}) was left out{why}."
    read = f'view "section" with a query ({s["queries"]})'
    if view == "summary":
        return f"This is the summary of {name} (its outline with each part's first sentence); the rest ({rest}) was left out{why}. To read a part, ask for {read}."
    outline = s.get("outline")
    partial = f"; the outline shows {_n(outline[0])} of its {_n(outline[1])} parts" if outline and outline[0] < outline[1] else ""
    cut = s.get("cut")
    cut_text = f"; the stub itself was cut short to fit {_phrase(cut)}" if cut else ""
    return f"This is the stub of {name} (its size and outline); the rest ({rest}) was left out{why}{partial}{cut_text}. To read more, ask for a bigger budget, or for {read}."


def _headline(shape: _Shape, name: str, size: int) -> str:
    return f"{name}: {shape.kind}, {_n(size)} tokens, {_n(len(shape.lines))} lines, {_n(count_chars(shape.full))} characters; {shape.facts}."


def _cut_to_fit(text: str, fits: Any) -> str:
    """The longest prefix of ``text`` (in UTF-16 code units) that fits, never splitting a surrogate pair."""
    units = text.encode("utf-16-le", "surrogatepass")

    def prefix(k: int) -> str:
        return units[: 2 * k].decode("utf-16-le", "surrogatepass")

    lo, hi = 0, len(units) // 2
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(prefix(mid)):
            lo = mid
        else:
            hi = mid - 1
    end = lo
    while end > 0 and not fits(prefix(end)):
        end -= 1
    if end > 0 and 0xD800 <= int.from_bytes(units[2 * end - 2 : 2 * end], "little") <= 0xDBFF:
        end -= 1
    return prefix(end)


def _stub_of(shape: _Shape, name: str, size: int, with_head: Any, bounds: "list[_Bound]") -> "tuple[str, int, list[_Bound]]":
    parts = [p for p in shape.parts if not p.hidden]
    hint = f'To read more: ask for a bigger budget, or for view "section" with a query ({shape.queries}).'
    head = _headline(shape, name, size)

    def make(shown: int) -> str:
        lines = [head]
        if parts and shown > 0:
            lines.append("Outline:")
            lines.extend(p.outline for p in parts[:shown])
        if shown < len(parts):
            lines.append(f"… and {_n(len(parts) - shown)} more")
        lines.append(hint)
        return with_head("\n".join(lines))

    def fits(text: str) -> bool:
        return not _broken(bounds, _measure(text))

    if fits(make(len(parts))):
        return make(len(parts)), len(parts), []
    lo, hi = 0, len(parts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(make(mid)):
            lo = mid
        else:
            hi = mid - 1
    if fits(make(lo)):
        return make(lo), lo, []
    whole = make(0)
    return _cut_to_fit(whole, fits), 0, _broken(bounds, _measure(whole))


def _fit_shape(shape: _Shape, view: Any, budget: Any, query: Any, chars: Any, head: Any, name: Any, noun: str) -> Fitted:
    view = view or None
    query = query if query else None
    if not wanted(view, budget or None, query):
        return Fitted(shape.full, None)
    name = name or noun
    head = head or None

    def with_head(body: str) -> str:
        return f"{head}\n{body}" if head else body

    normal = _budget(budget)
    bounds = _bounds_of(normal, chars or None)
    whole = _measure(with_head(shape.full))
    size = whole[0]
    q = _trim(query) if query is not None and _trim(query) != "" else None
    asked = view if view in _ORDER else None
    start = asked or ("section" if q is not None else "full")
    story: "dict[str, Any]" = {"name": name, "size": size, "query": q, "refused": None, "missing": None, "queries": shape.queries}

    def answer(v: str, text: str, measured: "tuple[int, int]", **extra: Any) -> Fitted:
        note_story = dict(story, view=v, tokens=measured[0], **extra)
        return Fitted(text, {"view": v, "budget": normal, "size": size, "tokens": measured[0], "omitted": _omitted(note_story)})

    for v in _ORDER[_ORDER.index(start) :]:
        if v == "stub":
            break
        section = None
        if v == "section":
            if q is None:
                if start == "section":
                    story["missing"] = "no_query"
                continue
            found = _select_section(shape, q)
            if found is None:
                story["missing"] = "no_match"
                continue
            body, section = found
        else:
            body = shape.full if v == "full" else "\n".join([_headline(shape, name, size)] + [p.summary for p in shape.parts if not p.hidden])
        text = with_head(body)
        m = whole if v == "full" else _measure(text)
        over = _broken(bounds, m)
        if not over:
            return answer(v, text, m, section=section) if section is not None else answer(v, text, m)
        if story["refused"] is None:
            story["refused"] = (v, m[0], over)
    stub, shown, cut = _stub_of(shape, name, size, with_head, bounds)
    return answer("stub", stub, _measure(stub), outline=(shown, len([p for p in shape.parts if not p.hidden])), cut=cut)


def fit_document(
    text: str,
    view: Optional[str] = None,
    budget: Optional[int] = None,
    query: Optional[str] = None,
    chars: Optional[int] = None,
    head: Optional[str] = None,
    name: Optional[str] = None,
) -> Fitted:
    """Fits a text document (Markdown by headings, code by definitions, other text by runs of lines)."""
    return _fit_shape(_shape_document(text, name or head or None), view, budget, query, chars, head, name, "the document")


def fit_diff(
    diff: str,
    view: Optional[str] = None,
    budget: Optional[int] = None,
    query: Optional[str] = None,
    chars: Optional[int] = None,
    head: Optional[str] = None,
    name: Optional[str] = None,
) -> Fitted:
    """Fits a unified diff; its parts are files and, by ``<path>#<n>``, hunks."""
    return _fit_shape(_shape_diff(diff), view, budget, query, chars, head, name, "the diff")


def fit_json(
    value: Any,
    view: Optional[str] = None,
    budget: Optional[int] = None,
    query: Optional[str] = None,
    chars: Optional[int] = None,
    head: Optional[str] = None,
    name: Optional[str] = None,
) -> Fitted:
    """Fits a JSON value (as ``json.loads`` gives it), read by its top-level keys or items."""
    return _fit_shape(_shape_json(value), view, budget, query, chars, head, name, "the JSON")



# Words cl100k holds whole, as the TypeScript library lists them (looked up by hash).
COMMON_WORDS = (
    "aaron abandon abandoned abdom abilities ability abnormal aboard abort abortion about above "
    "abraham abroad absence absent absolute absolutely absor absorb abstract absurd abund abundance "
    "abuse abused academic academy acceler acceleration accent accept acceptable acceptance accepted "
    "accepting accepts access accessed accessible accessing accessories accident accidentally "
    "accidents accom accommod accommodate accommodation accompanied accompany accompanying accompl "
    "accomplish accomplished accord accordance according accordingly account accountability "
    "accountable accounting accounts accum accur accuracy accurate accurately accus accusations "
    "accused achie achieve achieved achievement achievements achieving acids acknow acknowled "
    "acknowledge acknowledged acquire acquired acquisition acres across acted acting action actions "
    "activ activate activated activation active actively activist activists activities activity actor "
    "actors actress actual actually acute adalah adams adapt adaptation adapted adapter added addict "
    "addiction adding addition additional additionally additions address addressed addresses "
    "addressing adequate adher adjacent adjust adjustable adjusted adjustment adjustments admin "
    "administer administered administr administration administrative administrator administrators "
    "admission admit admits admitted adobe adoles adolescent adopt adopted adoption adult adults "
    "advance advanced advances advant advantage advantages advent adventure adventures advers adverse "
    "advert advertis advertisement advertising advice advis advise advised adviser advisor advoc "
    "advocacy advocate advocates aesthetic affair affairs affect affected affecting affection affects "
    "affero affili affiliate affiliated affiliates affirm afford affordable afghan afghanistan afraid "
    "africa african after afternoon afterwards again against agencies agency agenda agent agents "
    "aggreg aggregate aggress aggressive aging agree agreed agreeing agreement agreements agrees "
    "agricult agricultural agriculture ahead aimed aiming aircraft airline airlines airport alabama "
    "alarm alaska albert alberta album albums alcohol alert alerts alexand alexander algorithm "
    "algorithms algun alias alice alien aliens align aligned alignment alike aliment alive allah "
    "alleg allegations alleged allegedly allen allerg alles alliance allies alloc allocate allocated "
    "allocation allow allowed allowing allows almost alone along alongside alpha alphabet already "
    "alter altered altern alternate alternative alternatively alternatives although altitude "
    "altogether aluminum always amateur amazing amazon ambassador ambient ambit ambitious amend "
    "amended amendment amenities americ america american americans ammunition among amongst amount "
    "amounts amsterdam analog analy analys analyses analysis analyst analysts analytics analyze "
    "analyzed ancest ancestors anche anchor ancient andere anderen anderson andre andrew android "
    "androidx angel angela angeles anger angle angles angry angular animal animals animate animated "
    "animation animations anime ankle anniversary annot annotation annotations announc announce "
    "announced announcement announcing annoy annoying annual annually annunci anonym anonymous "
    "another answer answered answering answers anterior antes anthony antib antibiot anticip "
    "anticipated anton antonio anxiety anxious anybody anymore anyone anything anytime anyway "
    "anywhere apache apart apartment apartments aplic apollo apolog apologize apost appar apparent "
    "apparently appeal appealing appeals appear appearance appearances appeared appearing appears "
    "append appet appetite apple appliances applic applicable applicant applicants application "
    "applications applied applies apply applying appoint appointed appointment appointments apprec "
    "appreciate appreciated appreciation appro approach approached approaches approaching appropri "
    "appropriate appropriately approval approve approved approx approximately april arabia arabic "
    "arbit arbitrary archae architect architecture archive archives archivo arctic areas arena "
    "argentina argparse arguably argue argued argues arguing argument arguments arise arithmetic "
    "arizona arkansas armed armen armor around arrang arrange arranged arrangement arrangements array "
    "arrays arrest arrested arrests arrival arrive arrived arrives arriving arrow arrows arsenal "
    "arthur artic article articles artifact artifacts artificial artist artistic artists artwork "
    "ascending ashley asian aside asked asking asleep aspect aspects aspir assad assass assault "
    "assembled assembly assert assertion assess assessed assessment asset assets assign assigned "
    "assignment assignments assist assistance assistant assisted assists associ associate associated "
    "association associations assum assume assumed assumes assuming assumption assumptions assure "
    "assured aster aston asylum async athlete athletes athletic atlanta atlantic atmos atmosphere "
    "atomic atoms attach attached attachment attachments attack attacked attacker attacking attacks "
    "attain attempt attempted attempting attempts attend attendance attended attending attention "
    "attitude attitudes attorney attorneys attract attracted attraction attractions attractive attrib "
    "attribute attributed attributes attrs auction audience audiences audio audit august aussi austin "
    "austral australia australian austria authentic authenticate authenticated authentication author "
    "authorities authority authorization authorize authorized authors autism autocomplete autom "
    "automated automatic automatically automation automobile autonomous autor avail availability "
    "available avant avatar avenue average averaged avoid avoided avoiding avoir await awake award "
    "awarded awards aware awareness awesome awful awkward axios azure babies backdrop backed backend "
    "background backgrounds backing backpack backs backup backward backwards backyard bacter bacteria "
    "badge badly baise baker baking balance balanced balances balcon ballot balls baltimore bands "
    "bandwidth bangladesh banking bankrupt bankruptcy banks banned banner barack barbara barcelona "
    "barely barrel barrier barriers barry baseball based baseline basement basename bases basic "
    "basically basics basis basket basketball batch bathroom batman batter batteries battery battle "
    "battlefield battles bcrypt beach beaches beans bearing bearings bears beast beaten beating beats "
    "beaut beautiful beautifully beauty became because become becomes becoming bedroom bedrooms beers "
    "before began begin beginning begins begun behalf behave behavior behavioral behaviors behaviour "
    "behind beijing being beings belgium belie belief beliefs believe believed believes believing "
    "belle belly belong belonging belongs beloved below bench benchmark beneath benef benefici "
    "beneficial benefit benefits benjamin bennett berkeley berlin bernard bernie beside besides beste "
    "betray better betting between bever beyond bgcolor bible bicycle biden bigger biggest bikes "
    "bilder billing billion billions bills billy binary binding bindings biological biology birds "
    "birmingham birth birthday bishop bitcoin bitmap bitter bizarre black blade blake blame blamed "
    "blank blanket blast bleeding blend bless blessed blind blink block blockchain blocked blocking "
    "blocks blogs blonde blood bloody bloom bloomberg blowjob blown blueprint blues bluetooth board "
    "boards boasts boats bobby bodies boiler bombing bombs bonds bones bonus bonuses booked booking "
    "bookmark books boolean boost booth boots bootstrap border borders bored boring borrow boston "
    "bother bottle bottles bottom bought bounce bound boundaries boundary bounding bounds boxes "
    "boyfriend brace bracket bradley brady brain brains brake branch branches brand brandon brands "
    "brass brave brazil brazilian breach bread break breakdown breakfast breaking breaks breast "
    "breasts breat breath breathe breathing breed brexit brian brick bridge brief briefly bright "
    "brightness brill brilliant bring bringing brings britain british broad broadcast broader "
    "broadway broke broken broker brook brooklyn brooks brother brothers brought brown brows browse "
    "browser browsers browsing bruce brush brussels brutal bryan bubble bucket buddy budget buffalo "
    "buffer buffered buffers build builder building buildings builds built bullet bullets bunch "
    "bundle burden bureau bureauc bureaucr buried burned burning burst buses business businesses "
    "butler butter button buttons buyer buyers buying bypass bytes cabin cabinet cabinets cable "
    "cables cache cached caffe calcium calcul calculate calculated calculating calculation "
    "calculations calculator calendar calgary calibration california callback callbacks called caller "
    "calling calls calories cambridge camera cameras cameron campaign campaigns campbell camping "
    "campo camps campus canada canadian canadians cancel canceled cancell cancellation cancelled "
    "cancer candid candidate candidates candle candy cannabis cannot canon cantidad canvas "
    "capabilities capability capable capac capacity capital capitalism capitol captain caption "
    "capture captured caracter carbon cardio cards career careers careful carefully cares cargo "
    "caribbean caring carlos carol carolina carpet carried carrier carriers carries carry carrying "
    "carter cartoon cases casino casinos casting castle casual catal catalog catast catch catches "
    "catching categor categories category cater catholic cattle caught cause caused causes causing "
    "caution cease ceiling celebr celebrate celebrated celebrating celebration celebrity cellpadding "
    "cells cellspacing cellular cement center centered centers centr central centre centres cents "
    "centuries century cerca ceremony certain certainly certificate certificates certification "
    "certified cette chain chains chair chairman chairs chall challeng challenge challenged "
    "challenges challenging chamber champ champion champions championship chance chances chang change "
    "changed changes changing channel channels chaos chapter chapters character characteristic "
    "characteristics characterized characters charg charge charged charges charging charity charles "
    "charlie charlotte charm charming chars charset chart charter charts chase cheap cheaper check "
    "checkbox checked checking checkout checkpoint checks checksum cheer cheese chelsea chemical "
    "chemicals chemistry chess chest chicago chick chicken chief child childhood children chile chill "
    "china chinese chips chlor chocolate choice choices cholesterol choose choosing chopped chose "
    "chosen chris christ christian christianity christians christmas christopher chrom chrome chron "
    "chronic chuck chunk chunks church churches cialis cigaret cigarette cigarettes cincinnati cinema "
    "cipher circle circles circuit circular circulation circum circumstances cited cities citing "
    "citiz citizen citizens citizenship civil civilian civilians civilization claim claimed claiming "
    "claims clang clarify clarity clark class classe classes classic classical classification "
    "classified classifier classroom clause clazz clean cleaned cleaner cleaning cleans cleanup clear "
    "clearance cleared clearfix clearing clearly cleveland clever click clicked clicking clicks "
    "client cliente clients climate climb climbing clinic clinical clinton clips clock clone close "
    "closed closely closer closes closest closet closing closure cloth clothes clothing cloud clouds "
    "clubs cluster clusters coach coaches coaching coalition coast coastal cocaine coconut codec "
    "codes codigo coding coeff coefficient coefficients coffee cognitive cohen coinc coins collabor "
    "collaboration collapse collapsed collar colle colleague colleagues collect collected collecting "
    "collection collections collective collector colleg college colleges collins collision colomb "
    "colombia colon colonial color colorado colored colorful coloring colors colour colours colspan "
    "colum columbia columbus column columns combat combination combinations combine combined combines "
    "combining combo comedy coment comes comey comfort comfortable comic comics coming comma command "
    "commander commands comme comment commentary commented comments commerce commercial commission "
    "commissioner commit commitment committed committee commod commodity common commonly commons "
    "commonwealth commun communic communicate communication communications communist communities "
    "community compact compan companies companion company compar comparable compare compared "
    "comparing comparison comparisons compart compass compassion compat compatibility compatible "
    "compelling compens compensation compet compete competing competition competitive competitors "
    "compilation compile compiled compiler compl complain complained complaint complaints comple "
    "complement complet complete completed completely completing completion complex complexity "
    "compliance complicated complications compliment comply component components compose composed "
    "composite composition compound compounds compr compreh comprehensive compress compressed "
    "compression comprom compromise comput computation compute computed computer computers computing "
    "concat conce conced concent concentr concentrate concentrated concentration concentrations "
    "concept concepts concern concerned concerning concerns concert conclude concluded conclusion "
    "conclusions concrete concurrent condem condemned condition conditional conditioning conditions "
    "condom conduct conducted conducting confeder conference conferences confidence confident "
    "confidential config configuration configurations configure configured confirm confirmation "
    "confirmed conflic conflict conflicts conform confront confused confusing confusion congr "
    "congress congressional conjunction connect connected connecticut connecting connection "
    "connections connectivity connector connects conoc conqu consc conscious consciousness conse "
    "consec consect consectetur consecutive consensus consent consequ consequence consequences "
    "conserv conservation conservative conservatives consider considerable considerably consideration "
    "considerations considered considering considers consist consistency consistent consistently "
    "consisting consists console consolid conspir conspiracy const constant constantly constants "
    "constexpr constit constitu constitute constitution constitutional constr constraint constraints "
    "construct constructed construction constructor consult consultant consultation consulting consum "
    "consume consumed consumer consumers consuming consumption contact contacted contacts contain "
    "contained container containers containing contains contamin contempl contemporary content "
    "contents contest context contexts contin continent conting continu continually continue "
    "continued continues continuing continuous continuously contr contra contract contractor "
    "contractors contracts contrad contrary contrast contrib contribute contributed contributing "
    "contribution contributions contributor contributors control controlled controller controllers "
    "controlling controls controvers controversial controversy conven convenience convenient convent "
    "convention conventional conver convers conversation conversations conversion convert converted "
    "converter converting converts convey convicted conviction convin convinc convince convinced "
    "cooked cookie cookies cooking cooler cooling cooper cooperation coord coordin coordinate "
    "coordinates coordination coordinator coords copied copies copper copying copyright cores corner "
    "corners coron coronavirus corpor corporate corporation corporations corps corre correct "
    "corrected correction correctly correl correlation correspond corresponding corresponds corrid "
    "corrupt corruption costa costly costs costume cotton couch could couldn council counsel count "
    "counted counter counterparts counters counties counting countless countries country counts "
    "county couple coupled couples coupon coupons courage course courses court courtesy courts cousin "
    "cover coverage covered covering covers covid crack craft crafted craig crash crashed crashes "
    "crate crazy cream creat create created creates creating creation creative creativity creator "
    "creators creature creatures credentials credibility credit credits creek creep cricket cried "
    "crime crimes criminal criminals crisis crist criteria criterion critic critical criticism "
    "criticized critics crops cross crossed crossing crossorigin crowd crowded crowds crown crucial "
    "crude cruel cruise crush crushed crusher crushers crushing crying crypt crypto cryptoc "
    "cryptocurrency cryst crystal cuando cuenta cuisine cultiv cultural culture cultures curious "
    "currencies currency current currently curriculum cursor curve curves custody custom customer "
    "customers customize customized customs cutting cyber cycle cycles cycling cylinder czech dados "
    "daily dairy dakota dalam dallas damage damaged damages damaging dance dancing danger dangerous "
    "dangers daniel danny darkness dashboard database databases dataframe datas dataset datasets "
    "dated dates datetime dating datos daughter daughters david davis deadline deadly dealer dealers "
    "dealing deals dealt death deaths debate debates debris debug debugging debut decade decades "
    "decay december decent decentral decide decided decides deciding decimal decis decision decisions "
    "decks declar declaration declarations declare declared declaring decline declined decode decoded "
    "decoder decom decor decorated decoration decre decrease decreased decrypt dedicated dedication "
    "deduct deduction deemed deeper deeply default defaults defeat defeated defect defence defend "
    "defendant defended defender defending defense defensive defer deferred deficit defin define "
    "defined defines defining definit definitely definition definitions degree degrees delay delayed "
    "delays deleg delegate delegates delet delete deleted deleting deletion delhi deliber "
    "deliberately delicate delicious delight delighted delimiter deliver delivered delivering "
    "delivers delivery della delle delta demand demanded demanding demands democr democracy democrat "
    "democratic democrats demographic demol demon demonstr demonstrate demonstrated demonstrates "
    "demonstration dengan denial denied denmark dennis dense density dental dentro denver depart "
    "department departments departure depend dependencies dependency dependent depending depends "
    "deploy deployed deployment deport depos deposit deposits deprecated depress depression depth "
    "deputy deriv derivative derived descent descri describe described describes describing "
    "description descriptions descriptor desde deserialize desert deserve deserves design designated "
    "designed designer designers designing designs desirable desire desired desires desktop desper "
    "desperate desperately despite destination destinations destroy destroyed destroying destruct "
    "destruction detail detailed details detained detect detected detection detector detention deter "
    "deterior determin determination determine determined determines determining detroit deutsch "
    "devast devastating develop developed developer developers developing development developments "
    "develops deviation device devices devil devoted diabetes diagn diagnosed diagnosis diagnostic "
    "diagonal diagram dialog dialogue diameter diamond dictionary diego diese diesel diesem dieser "
    "dietary difer differ difference differences different differently difficult difficulties "
    "difficulty digest digit digital digits dignity dildo dilig dimension dimensions dining dinner "
    "diplom diplomatic direct directed direction directions directive directly director directories "
    "directors directory dirname dirty disabilities disability disable disabled disadv disag disagree "
    "disap disappe disappear disappeared disappoint disappointed disappointing disaster discard "
    "discharge discipl discipline disclaimer disclose disclosed disclosure disconnect discord "
    "discount discounts discour discover discovered discovery discre discret discretion discrim "
    "discrimination discuss discussed discusses discussing discussion discussions disease diseases "
    "dishes dismiss dismissed disney disorder disorders dispar dispatch dispatcher dispens displ "
    "display displayed displaying displays dispon disposal dispose disposed disposing disput dispute "
    "disrupt disse dissert dissertation distance distances distant distinct distinction distinctive "
    "distingu distinguish distinguished distr distress distrib distribute distributed distribution "
    "district districts distur disturb disturbing diver divers diverse diversity divert divid divide "
    "divided divine division divisions divorce django docker doctor doctors doctrine document "
    "documentary documentation documented documents doesn doing dollar dollars dolor domain domains "
    "domestic domin dominant dominated donald donate donated donation donations donde donna donne "
    "donor donors doors doses double doubled doubt dough douglas download downloaded downloading "
    "downloads downtown dozen dozens draft drafted dragged dragon drain drama dramatic dramatically "
    "drawer drawing drawings drawn draws dread dream dreams dress dressed dresses dressing dried "
    "drift drill drilling drink drinking drinks drive driven driver drivers drives driving drone "
    "drones dropdown dropped dropping drops drought drove drugs drunk drupal dtype dubai dublin dummy "
    "dumpster duplic duplicate durability durable durante duration durch during dutch duties dying "
    "dynam dynamic dynamics dysfunction eager eagle eagles earlier earliest early earned earning "
    "earnings earth earthqu earthquake easier easiest easily easter eastern eaten eating ebook "
    "eclipse econom economic economics economies economy ecosystem edges editable edited editing "
    "edition editor editorial editors educate educated education educational edward edwards effect "
    "effective effectively effectiveness effects effic efficiency efficient efficiently effort "
    "efforts egypt egyptian eigen eight eighth einem einen einer eines einfach either elabor "
    "elaborate elapsed elastic elder elderly elect elected election elections electoral electric "
    "electrical electricity electro electron electronic electronics elegant element elementary "
    "elements elevated elevation elevator eligible elimin eliminate eliminated elite elizabeth eller "
    "elseif elsewhere elsif email emails embarrass embed embedded embod embrace emerg emerge emerged "
    "emergency emerging emily emissions emotion emotional emotionally emotions empath emperor emphas "
    "emphasis empir empire employ employed employee employees employer employers employment empower "
    "empresa empty enable enabled enables enabling encode encoded encoder encoding encompass encontr "
    "encore encount encounter encountered encounters encour encourage encouraged encourages "
    "encouraging encrypt encrypted encryption enctype encuent endanger ended endforeach endif ending "
    "endless endors endorse endpoint endpoints enemies enemy energ energy enforce enforcement engage "
    "engaged engagement engaging engine engineer engineering engineers engines england english "
    "enhance enhanced enhancement enjoy enjoyable enjoyed enjoying enjoys enorm enormous enough "
    "enrich enrolled enrollment ensure ensures ensuring enter entered entering enterprise enters "
    "entert entertaining entertainment enthus enthusi enthusiasm entire entirely entities entitled "
    "entity entrance entre entreprene entrepreneur entrepreneurs entries entry enumer enumerate "
    "envelope environment environmental environments enzym episode episodes epoch epsilon equal "
    "equality equally equals equation equations equip equipment equipped equity equivalent erase "
    "erect erotic erotik erotische errno error errors escal escape escaped escort escorts eskorte "
    "eslint especial especially esper essay essays essence essential essentially essere establish "
    "established establishing establishment estado estar estate estim estimate estimated estimates "
    "eternal ether ethereum ethical ethics ethnic europa europe european euros evalu evaluate "
    "evaluated evaluating evaluation evangel evans evening event events eventually every everybody "
    "everyday everyone everything everywhere evidence evident evolution evolve evolved exact exactly "
    "exagger examination examine examined examining example examples exceed exceeded exceeds excel "
    "excell excellence excellent except exception exceptional exceptions excess excessive exchange "
    "exchanges excit excited excitement exciting exclude excluded exclus exclusive exclusively excuse "
    "execut executable execute executed executing execution executive executives executor exempl "
    "exempt exerc exercise exercises exhaust exhausted exhib exhibit exhibition exist existe existed "
    "existence existing exists exotic expand expanded expanding expansion expect expectation "
    "expectations expected expecting expects exped expend expense expenses expensive exper experi "
    "experience experienced experiences experiencing experiment experimental experiments expert "
    "expertise experts expiration expire expired expires explain explained explaining explains explan "
    "explanation explicit explicitly explo explode exploit exploration explore explored explorer "
    "exploring explos explosion explosive exponent export exported exports expose exposed exposure "
    "express expressed expressing expression expressions extend extended extending extends extension "
    "extensions extensive extent exterior extern external extra extract extracted extraction "
    "extraordinary extras extrem extreme extremely fabric fabulous facebook faced faces facial "
    "facilit facilitate facilities facility facing faction factor factories factors factory facts "
    "faculty failed failing fails failure failures faint faire fairly faith faithful fallback fallen "
    "falling falls false familiar families family famous fancy fantastic fantasy farmer farmers "
    "farming farms fascinating fashion faster fastest fatal father fatigue fault favor favorable "
    "favorite favorites favour favourite fclose feared fears feature featured features featuring "
    "february fecha feder federal federation feedback feeding feeds feeling feelings feels fellow "
    "felony female females femin feminist femme femmes fence ferguson fertil festival fetch fever "
    "fewer fiber ficken fiction field fields fifteen fifth fifty fight fighter fighters fighting "
    "fights figure figured figures filed filename filepath files filesystem filing fille filled "
    "filling filming filmm films filter filtered filtering filters final finale finally finance "
    "financial financially financing finden finding findings finds fines finest finger fingers finish "
    "finished finishes finishing finite finland firearm firearms firebase fired firefight firefox "
    "fires firing firmly firms firmware first fiscal fisher fishing fitness fitted fitting fixed "
    "fixes fixing fixture fixtures flags flame flames flash flask flavor flavors fleet flesh "
    "flexibility flexible flick flies flight flights float floating flood flooding floor flooring "
    "floors florida flour flower flowers flowing flows fluct fluid flush flying fname focus focused "
    "focuses focusing folder folders folks follow followed followers following follows fonction fonts "
    "fontsize foods footage football footer fopen forall forbidden force forced forces forcing "
    "foreach forecast foreign forest forests forever forex forget forgot forgotten forma formal "
    "formally format formation formats formatted formatter formatting formed former formerly forming "
    "forms formula forth fortune forty forum forums forward fossil foster fotos fought found "
    "foundation founded founder founding fourth fprintf fract fraction fragment fragments frame "
    "frames framework franc franca france franch franchise francis francisco frank franklin fraud "
    "frauen freak freder freed freedom freel freely freeze french frequ frequencies frequency "
    "frequent frequently fresh friction friday fridge fried friend friendly friends friendship fright "
    "front frozen fruit fruits frustr frustrated frustrating frustration fucked fucking fulfill fully "
    "funcion function functional functionality functioning functions fundament fundamental funded "
    "funding fundra fundraising funds funeral funny furnished furniture further furthermore fusion "
    "future futures gabriel gained gaining gains galaxy gallery gambling gameplay gamers games gaming "
    "gamma garage garbage garcia garden gardens garlic gates gateway gather gathered gathering gauge "
    "gchar gegen geile gender gener general generally generate generated generates generating "
    "generation generations generator generic generous genes genetic genius genome genre genres "
    "gentle gently genuine genuinely geometry georg george georgia german germany gesch gesture "
    "getattr getter getting getty ghost giant giants gifts girlfriend girls github given gives giving "
    "glance glass glasses global globally globals globe glory gloss gloves glucose gluten glyph "
    "glyphicon goals going golden gonna goodness goods google gordon gorgeous gotta gotten gover "
    "govern governance governed governing government governments governor grabbed grace grade grades "
    "gradient gradu gradually graduate graduated graduates graduation graham grain grammar grams "
    "grand grande grandes grandfather grandmother granite grant granted grants graph graphic graphics "
    "grasp grass grateful gratis gratuit grave gravity great greater greatest greatly greece greek "
    "green greenhouse grief griff grinding grocery gross ground grounds group groups growing grown "
    "grows growth grupo guarante guarantee guaranteed guarantees guard guardian guards guess guest "
    "guests guidance guide guided guidelines guides guild guilt guilty guitar haben habit habitat "
    "habits hacer hacking halloween hamilton hammer hampshire handed handful handle handled handler "
    "handlers handles handling hands handy hanging happen happened happening happens happily "
    "happiness happy harass harassment hardcore harder hardest hardly hardware harmful harmon harmony "
    "harness harper harris harrison harry harsh harvard harvest harvey hasattr hasta hated hatred "
    "haven having hawai hawaii hazard headed header headers heading headline headlines headquarters "
    "heads healing health healthcare healthier healthy heard hearing heart hearts heated heating "
    "heaven heavily heavy hebrew heeft heels height heights helicopt helicopter hello helmet helped "
    "helper helpers helpful helping helps hence henry hereby herein heritage heroes herself hesitate "
    "heter hidden hiding hierarchy higher highest highlight highlighted highlighting highlights "
    "highly highway hiking hilar hillary hills himself hindu hints hired hiring histogram histor "
    "historic historical historically history hitler hitting hobby hockey holder holders holding "
    "holds holes holiday holidays holland hollywood homeless homemade homepage homes homework homic "
    "homosex honda honest honestly honey honor honored honour hooks hoped hopeful hopefully hopes "
    "hoping horas horizon horizontal hormone horny horrible horror horse horses hospital hospitals "
    "hosted hostile hosting hostname hosts hotel hotels hottest hours house household households "
    "houses housing houston hover howard however htmlspecialchars https hudson human humanitarian "
    "humanity humans humble humidity humor hundred hundreds hunger hungry hunter hunting hurricane "
    "husband hybrid hydro hydrogen hyper hypothesis iceland iconic icons ideal ideas ident identical "
    "identification identified identifier identifies identify identifying identity ideology ignor "
    "ignore ignored ignoring illeg illegal illegally illinois illness illuminate illustr illustrated "
    "image images imagination imagine imagined imaging immedi immediate immediately immense immer "
    "immigr immigrant immigrants immigration immun immune impact impacts impair imper imperial "
    "implement implementation implementations implemented implementing implements implications "
    "implicit implied implies implode imply import importance important importante importantly "
    "imported imports impose imposed impossible impress impressed impression impressive imprison "
    "impro improve improved improvement improvements improves improving inability inactive "
    "inappropriate inaug inbox incent incentive incentives inches incidence incident incidents includ "
    "include included includes including inclusion inclusive income incoming incomplete incon incons "
    "incontri incor incorpor incorporate incorporated incorrect incre increase increased increases "
    "increasing increasingly incred incredible incredibly increment indeed indef indent independ "
    "independence independent independently index indexed indexes india indian indiana indians indic "
    "indicate indicated indicates indicating indication indicator indicators indices indict "
    "indigenous indirect indiv individ individual individually individuals indones indonesia indoor "
    "induced induction indul indust industrial industries industry inequality inevitable inexp "
    "infamous infant infect infected infection infections infer inferior infinite inflamm "
    "inflammation inflater inflation influ influence influenced influences influential inform "
    "information informative informed infrastructure ingredient ingredients inhab inhabit inher "
    "inherent inherit inherited inhib initi initial initialization initialize initialized initializes "
    "initially initiate initiated initiative initiatives inject injectable injection injured injuries "
    "injury inline inner innings innoc innocent innov innovation innovative inode input inputs "
    "inquiry insane insect insert inserted inserting insertion inside insight insights insist "
    "insisted inspect inspection inspir inspiration inspire inspired inspiring instagram install "
    "installation installed installing instance instanceof instances instant instantiate instantly "
    "instead instinct instit institute institution institutional institutions instr instruct "
    "instruction instructions instructor instrument instruments insufficient insulin insult insurance "
    "intact intake integ integer integers integr integral integrate integrated integration integrity "
    "intel intellect intellectual intelligence intelligent intend intended intens intense intensity "
    "intensive intent intention intentionally intentions inter interact interaction interactions "
    "interactive intercept interest interested interesting interests interf interface interfaces "
    "interference interior intermediate intern internal internally international internationally "
    "internet interpol interpolation interpre interpret interpretation interpreted interrog interrupt "
    "interrupted intersect intersection interval intervals interven intervention interventions "
    "interview interviewed interviews intest intim intimate intimid intrig intro introdu introduce "
    "introduced introducing introduction intros intval invalid invasion invent invented invention "
    "inventory inverse invest invested investig investigate investigated investigating investigation "
    "investigations investigators investing investment investments investor investors invisible "
    "invitation invite invited invocation invoice invoke invoked invol involve involved involvement "
    "involves involving ipsum iranian iraqi ireland irish irres irrit isinstance islam islamic island "
    "islands isolated isolation israel israeli isset issue issued issues italian italy items iterable "
    "iterate iteration iterations iterator itself jacket jackson jacob james jamie january japan "
    "japanese jason javafx javascript javax jeans jefferson jennifer jenter jeremy jerry jersey "
    "jerusalem jessica jesus jetzt jeune jewelry jewish jimmy johnny johnson joined joining joins "
    "joint joints jokes jonathan jones jordan joseph journal journalism journalist journalists "
    "journey jsonify judge judges judgment judicial juice julian jumped jumping jumps junior "
    "jurisdiction justice justified justify justin kansas karen kavanaugh keeping keeps keine keith "
    "kelly kennedy kentucky kenya keras kernel kevin keyboard keyword keywords kicked kicks kidney "
    "killed killer killing kills kinda kindle kinds kingdom kings kitchen klass knees knife knight "
    "knock knocked knowing knowledge known knows korea korean kosten kostenlos kotlin kotlinx krist "
    "kwargs label labeled labels labor laboratory labour lacking lacks ladder ladies lambda landed "
    "landing landmark lands landsc landscape lanes language languages laptop large largely larger "
    "largest larry laser lasted lasting lateinit lately later latest latin latitude latter laugh "
    "laughed laughing launch launched launches launching laundry laura laure lawmakers lawrence "
    "lawsuit lawyer lawyers layer layers laying layout leader leaders leadership leading leads league "
    "leagues leaked leaks learn learned learning lease least leather leave leaves leaving leban "
    "lecture legacy legal legally legend legendary legis legisl legislation legislative legislature "
    "legit legitimate lemma lemon length lengths lengthy lenses lesbian lesser lesson lessons letter "
    "letters letting level levels lever leverage lewis liability liable liber liberal libert liberty "
    "libraries library libya licence license licensed licenses licensing lifestyle lifetime lifted "
    "lifting light lighter lighting lightly lightning lights lightweight ligne liked likelihood "
    "likely likes likewise limit limitation limitations limited limiting limits lincoln linda linear "
    "lined lines lineup lingu lining linked linking links linux lions liquid lista liste listed "
    "listen listened listener listeners listening listing listings lists liter literal literally "
    "literary literature litigation litter little lived liver liverpool lives living loaded loader "
    "loading loads loans lobby local locale locally locals locate located location locations locked "
    "locker locking locks logged logger logging logic logical login logout lombok london longer "
    "longest longitude longtime looked looking looks lookup loops loose loses losing losses lottery "
    "louis louisiana lounge loved lovely lover lovers loves loving lower lowered lowest loyal loyalty "
    "lucas lucky lugar lunch luther luxury lying lynch lyrics machen machine machinery machines macro "
    "macros madison madrid magazine magazines magento magic magical magnet magnetic magnitude mailing "
    "maine mainly mainstream maint maintain maintained maintaining maintains maintenance major "
    "majority maker makers makes makeup making malays malaysia males malicious malloc manage managed "
    "management manager managers manages managing manchester mandate mandatory maneu manga manhattan "
    "manifest manip manipulate manipulation manner manual manually manufact manufacture manufactured "
    "manufacturer manufacturers manufacturing manus mapped mapper mapping march marco marcus margaret "
    "margin marginal margins maria marie marijuana marine mario marked marker markers market "
    "marketable marketing marketplace markets marking marks marriage married marry marsh marshal "
    "marshall martial martin marvel maryland mascul masks mason massachusetts massage massasje masses "
    "massive master masters masturb match matched matcher matches matching material materials "
    "mathematic mathematical mathematics mathf matplotlib matrices matrix matter matters matthew "
    "mattress mature maxim maximize maximum maxlength maybe mayor meals meaning meaningful means "
    "meant meantime meanwhile measure measured measurement measurements measures measuring mechan "
    "mechanical mechanics mechanism mechanisms medal media median medic medicaid medical medicare "
    "medication medications medicine medicines meditation mediterr mediterranean medium meeting "
    "meetings meets meille mejor melbourne member members membership membr membrane memcpy memor "
    "memorable memorial memories memory memset menos mensaje mental mentally mention mentioned "
    "mentions mentor menus mercedes merch merchandise merchant mercy merely merge merged merit "
    "message messages messaging metab metabol metabolism metadata metal metals metaph meter meters "
    "method methodology methods metres metric metrics metro mexican mexico miami michael michelle "
    "michigan micro microsoft middle middleware midfield midnight midst might migrants migration "
    "migrations milan miles milit militants military miller million millions milliseconds mills "
    "milwaukee minds mineral minerals mines minim minimal minimize minimum mining minister ministers "
    "ministry minnesota minor minority minus minute minutes mirror miscon misleading mismatch mismo "
    "missed missile missiles missing mission missions mississippi missouri mistake mistaken mistakes "
    "misunder mitch mitchell mitig mixed mixer mixing mixture mkdir mobil mobile mobility modal model "
    "modeling modelo models moder moderate modern modes modest modification modifications modified "
    "modifier modifiers modify module modules moist moisture molec molecular molecules moment momento "
    "moments momentum monday monde monetary money mongo mongoose monitor monitoring monitors monkey "
    "monster monsters montana month monthly months montreal monument moore moral moreover morgan "
    "mormon morning morph morris mortality mortgage moscow mostly mother mothers motion motiv "
    "motivated motivation motor motorcycle motors mount mountain mountains mounted mounting mouse "
    "mouth moved movement movements moves movie movies moving mozilla mueller muhammad muito mujeres "
    "multi multip multiplayer multiple multiplier multiply mumbai mundo municip municipal murder "
    "murdered murphy murray muscle muscles museum music musical musician musicians muslim muslims "
    "mutable mutation mutations mutex mutual myself mysql mysqli myster mysterious mystery naked "
    "named namely nameof names namespace naming nancy narrative narrow nashville nasty nathan nation "
    "national nations nationwide native natur natural naturally nature navbar navig navigate "
    "navigation navigator nearby nearest nearly nebraska neces necess necessarily necessary necessity "
    "needed needing needle needs negative neglect neglig negot negotiate negotiations neighb neighbor "
    "neighborhood neighborhoods neighbors neighbour neighbours neither nella nelson nerve nervous "
    "nested netflix netherlands network networking networks neuken neural neuro neurons neutral "
    "nevada never nevertheless newer newest newly newsletter newsletters newsp newspaper newspapers "
    "newton newtonsoft nicely niche nicht nickname niger nigeria night nightmare nights nintendo "
    "noble nobody nodded nodes noexcept noise nokia nombre nomin nominated nomination nomine nominee "
    "nonatomic nonetheless nonprofit normal normalize normalized normally north northern norway "
    "notable notably notebook noted notes nothing notice noticed notices notification notifications "
    "notified notify noting notion notre nouvel novel novels november nowhere nucle nuclear nuest "
    "nueva nuevo nullable nullptr number numbers numer numeric numerical numero numerous numpy nurse "
    "nurses nursing nutrients nutrition oakland obama obamacare obesity object objective objectives "
    "objects objet objeto oblig obligation obligations observ observable observation observations "
    "observe observed observer observers obstacle obstacles obtain obtained obtaining obvious "
    "obviously occas occasion occasional occasionally occasions occup occupation occupied occur "
    "occured occurred occurrence occurring occurs ocean october offence offense offensive offer "
    "offered offering offerings offers offic office officer officers offices official officially "
    "officials offline offset offsets offshore often oklahoma older oldest olive oliver olymp olympic "
    "olympics omega onclick onder ongoing onion online ontario opacity opcode opened opener opening "
    "openly opens opera operand operate operated operates operating operation operational operations "
    "operator operators opinion opinions oppon opponent opponents opport opportunities opportunity "
    "oppos oppose opposed opposing opposite opposition optical optim optimal optimistic optimization "
    "optimize optimized optimizer option optional options oracle orange orbit orden order ordered "
    "ordering orders ordinary oregon organ organic organis organisation organisations organised "
    "organiz organization organizations organize organized organizing organs orgasm orient "
    "orientation origin original originally origins orlando orleans orphan oscar other others "
    "otherwise otros ottawa ought ourselves outbreak outcome outcomes outdoor outdoors outer outfile "
    "outfit outgoing outlet outlets outline outlined outlook output outputs outrage outside "
    "outstanding overall overcome overflow overhead overl overlap overlay overlook overly overnight "
    "override overrides overs overse overseas oversight overtime overview overwhel overwhelming "
    "overwrite owned owner owners ownership oxford oxygen pacific package packages packaging packed "
    "packet packets packing packs padding pages pagination painful paint painted painter painting "
    "paintings paired pairs pakistan palace palest palestin palestinian palestinians palette pandas "
    "pandemic panel panels panic pants paper papers parad parade paragraph parallel param parameter "
    "parameters params paras parcel paren parent parents paris parker parking parks parliament parse "
    "parsed parser parsing parte partial partially partic particip participant participants "
    "participate participated participating participation particle particles particular particularly "
    "parties partir partition partly partner partners partnership parts party passage passe passed "
    "passenger passengers passes passing passion passionate passive passport password passwords pasta "
    "paste patch patches patent paths pathway patience patient patients patio patri patrick patriots "
    "patrol patron pattern patterns paulo pause paused paying payload payment payments peace peaceful "
    "pearl pedest peers penalties penalty pending penet penis pennsylvania pension pentagon pentru "
    "people peoples pepper perceived percent percentage perception perfect perfection perfectly "
    "perform performance performances performed performing performs perhaps period periodic periods "
    "peripheral perman permanent permanently permet permission permissions permit permits permitted "
    "perpet perpetr perry persec persist persistent person persona personal personality personalized "
    "personally personas personnel persons perspective perspectives persu peter peters petite "
    "petition pharm pharmac pharmaceutical pharmacy phase phases phenomen phenomenon philadelphia "
    "philip philipp philippines phill phillips philosoph philosophy phoenix phone phones phosph photo "
    "photograph photographer photographs photography photos phrase phrases physical physically "
    "physician physicians physics piano picked picker picking pickle picks pickup picture pictures "
    "piece pieces pierre piger pills pilot pilots pinterest pione pipeline pipes pitch pittsburgh "
    "pivot pixel pixels pizza place placed placeholder placement places placing plain plaint plane "
    "planes planet planets planned planning plans plant planted plants plasma plastic plate plates "
    "platform platforms playback played player players playing playlist playoff playoffs plays "
    "pleasant please pleased pleasure pledge plenty plots plugin plugins plural pocket pockets "
    "podcast poder poetry point pointed pointer pointers pointing points poison pokemon poker poland "
    "polar polic police policies policy polish polit political politically politician politicians "
    "politics polling polls pollution polygon pools poorly popul popular popularity populate "
    "populated population populations popup porno porque portable portal porter portfolio portion "
    "portions portland portrait portray ports portug portugal posed poses posit position positioned "
    "positioning positions positive possess possession possibilities possibility possible possibly "
    "posted poster posters posting posts potato potatoes potent potential potentially potter pound "
    "pounds poverty powder power powered powerful powers pract practical practically practice "
    "practices practicing practition praise praised prayer prayers preced preceding precio precious "
    "precip precis precise precisely precision predecess predicate predict predicted prediction "
    "predictions predomin prefer preference preferences preferred prefix prefs pregn pregnancy "
    "pregnant prejud prelim preliminary premier premiere premises premium prend prepar preparation "
    "prepare prepared preparing prescribed prescription presence present presentation presentations "
    "presented presenter presenting presents preserve preserved presidency president presidential "
    "press pressed pressing pressure prest presum presumably pretend pretty preval prevalence prevent "
    "prevented preventing prevention prevents preview previous previously price priced prices pricing "
    "pride priest prima primarily primary prime primer primitive prince princess princip principal "
    "principle principles print printed printer printf printing println prints prior priorities "
    "priority prison prisoners privacy privat private privately prive privile privilege privileges "
    "prize prizes probability probable probably probe proble problem problematic problems proced "
    "procedure procedures proceed proceeding proceedings proceeds proces process processed processes "
    "processing processor processors produ produce produced producer producers produces producing "
    "product production productive productivity producto products profes profess profession "
    "professional professionals professor profile profiles profit profitable profits profound program "
    "programa programme programmes programming programs progress progression progressive prohib "
    "prohibited project projected projectile projection projects prolong prominent promise promised "
    "promises promising promo promot promote promoted promotes promoting promotion promotional "
    "promotions prompt prompted prone pronounced proof propag propaganda proper properly properties "
    "property prophet proport proportion propos proposal proposals propose proposed propri "
    "proprietary props prosec prosecution prosecutor prosecutors prospect prospective prospects "
    "prosper prost prostit prostitu prostitutas protagon prote protect protected protecting "
    "protection protections protective protects protein proteins protest protesters protests proto "
    "protocol protocols prototype proud prove proved proven proves provid provide provided provider "
    "providers provides providing provinc province provincial proving provision provisions proximity "
    "proxy przez pseudo psych psychological psychology pthread public publication publications "
    "publicly publish published publisher publishers publishing puede puerto pulled pulling pulls "
    "pulse punch punct punish punishment purch purchase purchased purchases purchasing purely purple "
    "purpose purposes pursuant pursue pursuing pursuit pushed pushing pussy putin putting puzzle "
    "pygame pytest python quadr qualified qualify qualifying qualities quality quando quant "
    "quantities quantity quantum quarry quarter quarterback quarters quaternion quebec queen queens "
    "queries query quest question questioned questioning questions questo queue quick quicker quickly "
    "quiet quietly quite quote quoted quotes rabbit races rachel racial racing racism racist radar "
    "radeon radiation radical radio radius ragaz rails raise raised raises raising rally ranch random "
    "randomly range rangers ranges ranging ranked ranking rankings ranks rapid rapidly rapport rarely "
    "rated rates rather rating ratings ratio rational reach reached reaches reaching react reaction "
    "reactions reactor readable reader readers readily reading readonly reads ready reagan realise "
    "realistic reality realiz realize realized really realm reason reasonable reasonably reasoning "
    "reasons reass rebel rebels reboot rebuild recall recalled receipt receive received receiver "
    "receives receiving recent recently recept reception receptor recession recherche recip recipe "
    "recipes recipient recipients recogn recognised recognition recognize recognized recom recomm "
    "recommend recommendation recommendations recommended recon reconc record recorded recording "
    "recordings records recover recovered recovery recre recreated recreational recru recruit "
    "recruiting recruitment rectangle recurs recursive recycling reddit redirect redis redistrib "
    "redistribute redistribution redistributions reduce reduced reducer reduces reducing reduction "
    "redund refer reference referenced references referendum referred referring refers refined "
    "reflect reflected reflection reflects reflex reform reforms refresh refreshing refriger refuge "
    "refugee refugees refund refuse refused refusing regard regarded regarding regardless regards "
    "regex regime region regional regions regist register registered registering registers registr "
    "registration registro registry regression regret regul regular regularly regulate regulated "
    "regulation regulations regulatory rehab reign reinterpret reject rejected rejection relate "
    "related relates relating relation relations relationship relationships relative relatively "
    "relatives relax relaxed relaxing relay release released releases releasing relevant reliability "
    "reliable relief relies relig religion religious reload reluct relying remain remainder remained "
    "remaining remains remark remarkable remarks remed remember remembered remind reminded reminder "
    "reminds remot remote remotely removal remove removed removes removing rename renamed rencont "
    "rencontre rencontres render rendered renderer rendering renew renewable renewed renov renown "
    "renowned rental reopen repair repairs repeat repeated repeatedly repet replace replaced "
    "replacement replacing replay replic replica replied replies reply report reported reportedly "
    "reporter reporters reporting reports repos repository represent representation representative "
    "representatives represented representing represents reprodu reproduce reproduction republic "
    "republican republicans reputation request requested requesting requests require required "
    "requirement requirements requires requiring rescue research researcher researchers reserv "
    "reservation reserve reserved reserves reset resid residence resident residential residents "
    "residual resign resil resist resistance resistant resize resolution resolve resolved resolver "
    "reson resort resource resources respect respected respective respectively respir respond "
    "responded respondents responding responds respons response responses responsibilities "
    "responsibility responsible responsive restart restaur restaurant restaurants restoration restore "
    "restored restr restrict restricted restriction restrictions result resultado resulted resulting "
    "results resume retail retailer retailers retain retained retention retire retired retirement "
    "retreat retrie retrieve retrieved retro retrofit retry return returned returning returns retval "
    "reuse reuters reveal revealed revealing reveals revel reven revenge revenue revenues rever "
    "revers reverse reversed review reviewed reviewing reviews revis revised revision revolution "
    "revolutionary reward rewards rewrite rhetoric rhyth rhythm richard richmond rider riders rides "
    "ridge ridic ridiculous riding rifle right rights rigid rings rises rising risks ritual rival "
    "rivals river rivers roads robert roberts robin robinson robot robots robust rocket rocks rodrig "
    "roger rogers roles rolled roller rolling rolls roman romance romantic romney ronald rookie rooms "
    "roots rosen rospy roster rotate rotation rough roughly round rounded rounds route router routes "
    "routine routines routing royal rubber ruled rules ruling rumors runnable runner runners running "
    "runtime rural rushed rushing russell russia russian russians sacred sacrific sacrifice safari "
    "safeg safely safer safety saint saints salad salaries salary sales salope sample samples "
    "sampling samsung samuel sanct sanctions sanders sandwich sandy sanit santa sarah satellite "
    "satisf satisfaction satisfied satisfy satisfying saturday sauce saudi saved saves saving savings "
    "saying scaffold scala scalar scale scaled scales scaling scandal scanf scanner scanning scared "
    "scary scattered scenario scenarios scene scenes sched schedule scheduled scheduler schedules "
    "scheduling schem schema scheme schemes scholar scholars scholarship schon school schools science "
    "sciences scient scientific scientist scientists scipy scope score scored scores scoring scotland "
    "scott scottish scram scrap scratch screaming screen screening screens screenshot screw script "
    "scripts scroll scrolling scrut scrutiny sculpt sealed search searched searches searching season "
    "seasonal seasons seating seats seattle second secondary seconds secre secret secretary secrets "
    "section sections sector sectors secular secure secured securities security seeds seeing seeking "
    "seeks seemed seemingly seems segment segments segue seine seized selbst select selected "
    "selecting selection selections selector selenium seller sellers selling sells semester sempre "
    "senate senator sender sending sends senior seniors sensation sense senses sensible sensitive "
    "sensitivity sensor sensors sentence sentenced sentences sentiment separ separate separated "
    "separately separation separator september sequel sequelize sequence sequences serge serial "
    "serializable serialize serialized serializer serializers serie series serif serious seriously "
    "serve served server servers serves service services serving servlet session sessions sesso "
    "setting settings settle settled settlement setup seven sevent seventh sever several severe "
    "severely severity sexual sexuality sexually shade shader shades shadow shadows shaft shake "
    "shaking shall shallow shame shanghai shape shaped shapes share shared shares sharing sharp sheep "
    "sheer sheet sheets shelf shell shelter shelves shemale sheriff shield shift shifted shifting "
    "shifts shine shipped shipping ships shirt shirts shock shocked shocking shoes shook shoot "
    "shooter shooting shopping shops shore short shortage shortcut shorter shortly shorts shots "
    "should shoulder shoulders shouldn showcase showed shower showing shown shows shrink shuffle "
    "shutdown shutil siblings sidebar sides sidew sierra sight sigma signal signals signature "
    "signatures signed signific significance significant significantly signing signs silence silent "
    "silicon silly silver similar similarity similarly simon simpl simple simpler simply simpson "
    "simulate simulation simult simultaneously since singapore singer singh singing single singles "
    "singleton singular sinon sistema sister sisters sites sitting situated situation situations "
    "sixth sized sizeof sizes skeleton skept sketch skill skilled skills skipped skirt sklearn skull "
    "slash slave slavery slaves sleep sleeping sleeve slice slices slide slider slides sliding slight "
    "slightly slope slots slower slowly small smaller smallest smart smartphone smartphones smell "
    "smile smiled smiling smith smoke smoking smooth smoothly snake snapshot snprintf sobre soccer "
    "social societies society sockaddr socket sodium software solar soldier soldiers solely solic "
    "solid solution solutions solve solved solver solving somebody somehow someone something sometime "
    "sometimes somew somewhat somewhere songs sooner sophistic sophisticated sorry sorted sorting "
    "sorts sought souls sound sounded sounds source sources south southeast southern sovere soviet "
    "space spaces spacing spacious spain spanish spare spark sparse spatial spawn speak speaker "
    "speakers speaking speaks special specialist specialists specialized specially specialty species "
    "specific specifically specification specifications specified specifies specify specifying specs "
    "spect spectacular spectrum speculation speech speed speeds spell spells spencer spend spending "
    "spends spent sphere spider spiel spike spill spine spinner spinning spirit spirits spiritual "
    "spite splash split spoke spoken spokes spokesman spokesperson spokeswoman spons sponsor "
    "sponsored sponsors spont sport sporting sports spotlight spots spotted spouse spraw spray spread "
    "spreading spring springs sprint sprintf sprite sqlite squad square squares squeeze stabil "
    "stability stable stack stadium staff stage stages stainless stair stairs stake stakeholders "
    "stamp stance stand standard standards standing stands stanford stanley staring stark stars start "
    "started starter starting starts startup state stated stateless statement statements states "
    "static stating station stations statist statistical statistics stats statue status statute "
    "stayed staying stays stderr stdin stdout stead steady steal stealing steam steel steep steering "
    "stein stephan stephen stepped stepping steps stere stereo steve steven stevens stewart stick "
    "sticking sticks sticky stiff still stimulus stitch stock stocks stolen stomach stone stones "
    "stood stopped stopping stops storage store stored stores stories storing storm story straight "
    "straightforward strain strange stranger strap strateg strategic strategies strategy straw strcat "
    "strcmp strconv strcpy streak stream streaming streams street streets strength strengthen "
    "strengths stress stressed stret stretch strict strictly stride strides strike strikes striking "
    "string strings strip stripped strips strive strlen stroke strong stronger strongest strongly "
    "strtol strtolower strtotime struck struct structural structure structured structures strugg "
    "struggle struggled struggles struggling stuck student students studied studies studio studios "
    "study studying stuff stunning stupid style styled styles stylish subclass subject subjected "
    "subjects sublic sublicense submission submissions submit submitted submitting subprocess subscri "
    "subscribe subscriber subscribers subscription subsection subsequ subsequent subsequently subset "
    "subsid subsidi subst substance substances substant substantial substantially substit substitute "
    "substr substring subtitle subtle subtract subur succeed succeeded success successful "
    "successfully successor sudden suddenly suffer suffered suffering sufficient suffix sugar suggest "
    "suggested suggesting suggestion suggestions suggests suicide suitable suite suited suits summar "
    "summary summer summit summon sunday super superb superior superman supern superv supervision "
    "supervisor supplement supplements supplied supplier suppliers supplies supply support supported "
    "supporter supporters supporting supportive supports suppose supposed supposedly suppress suprem "
    "supreme surely surface surfaces surge surgery surgical surpr surprise surprised surprising "
    "surprisingly surre surrender surround surrounded surrounding surve surveillance survey surveys "
    "surviv survival survive survived survivors susan suscept suspect suspected suspects suspend "
    "suspended suspension suspicion suspicious sustain sustainable sustained sweat sweden swedish "
    "sweep sweet swift swimming swing swinger swipe swiss switch switched switches switching "
    "switzerland sword sydney symbol symbolic symbols symfony sympath sympt symptoms synchron "
    "synchronized syndrome syntax synthesis synthetic syria syrian system systematic systems tabindex "
    "table tables tablesp tablet tablets tackle tactic tactical tactics tagged taiwan taken takes "
    "taking talent talented talents tales talked talking talks tampa tanks tanto tantra target "
    "targeted targeting targets tasks taste tastes tasty tatto tattoo taught taxes taxpayer taxpayers "
    "taylor teach teacher teachers teaches teaching teammates teams tears techn technical technically "
    "technique techniques technological technologies technology teenage teenager teenagers teens "
    "teeth telephone telerik television telling tells temper temperature temperatures template "
    "templates temple tempo tempor temporal temporarily temporary temps tempt tenant tendency tender "
    "tends tener tennessee tennis tension tensions tensor tensorflow termin terminal terminate "
    "terminated termination terms terrain terrible territories territory terror terrorism terrorist "
    "terrorists terry tesla tested tester testified testim testimony testing tests texas texto texts "
    "texture textures thailand thank thanks thanksgiving theater theatre theft their theme themes "
    "thems themselves theoret theoretical theories theory therap therapeutic therapy there thereby "
    "therefore thereof therm thermal these thesis theta thick thickness thigh thing things think "
    "thinking thinks third thirty thomas thompson thorough thoroughly those though thought thoughts "
    "thous thousand thousands thread threading threads threat threatened threatening threats three "
    "threshold threw thrilled throat through throughout throw throwable throwing thrown throws thrust "
    "thumb thumbnail thunder thursday ticket tickets ticks tidak tiempo tiene tiger tight tiles timed "
    "timeline timely timeout timer times timestamp timezone timing tired tires tissue tissues titan "
    "title titled titles toast tobacco todas today todos together toggle toilet token tokens tokyo "
    "toler tolerance tomorrow tongue tonight toolbar tools tooltip tooth topic topics torch toronto "
    "torrent torture total totally touch touchdown touched touches touching tough tourism tourist "
    "tourists tournament tours toward towards tower towns toxic toyota trabaj trabajo trabal trace "
    "traces track tracked tracker tracking tracks tradable trade traded trademark traders trades "
    "trading tradition traditional traditionally traditions traff traffic trafficking traged tragedy "
    "tragic trail trailer trailing trails train trained trainer training trains trait traits "
    "trajectory trans transaction transactions transcript transf transfer transferred transfers "
    "transform transformation transformed transforms transgender transit transition transitions "
    "transl translate translated translation translations transmission transmit transmitted "
    "transparency transparent transport transportation trapped trash trauma travel traveled traveling "
    "travelling travels travers traverse treasure treasury treat treated treating treatment "
    "treatments treats treaty trees tremend tremendous trend trends trial trials triangle tribe "
    "tribes tribute trick tricks tricky tried tries trigger triggered triggers trillion triple trips "
    "triumph trivial troops trophy tropical troub trouble troubles truck trucks truly trump trunk "
    "trust trusted truth trying tubes tuesday tuition tumor tuned tunnel tuple turkey turkish turned "
    "turner turning turns turtle tutor tutorial tweet tweeted tweets twelve twenty twice twist "
    "twisted twitter tyler typed typedef typename typeof types typical typically typing typings "
    "ubuntu uintptr ukrain ukraine ukrainian ultimate ultimately ultra unable unavailable uncert "
    "uncertain uncertainty unchanged uncle unclear uncomfort uncomfortable uncon undef undefined "
    "under undergo underground underlying underneath unders underst understand understanding "
    "understands understood undert underway undoubtedly unemployment unexpected unfair unfold "
    "unfolding unfortunate unfortunately unicode uniform unint union unions uniqu unique united units "
    "unittest unity univers universal universe universities university unknown unlaw unless unlike "
    "unlikely unlimited unlock unlocked unnecessary unpack unprecedented unsafe unser unset unsigned "
    "unsupported unter until untuk unused unusual unveiled unwanted upcoming update updated updates "
    "updating upgrade upgraded upgrades upload uploaded upper upset upside urban urged urgent urllib "
    "usage useful useless userid username users using usize usual usually usuario utilities utility "
    "utiliz utilize utilized utilizing utils utter utterly vacation vaccine vacuum vagina valentine "
    "valid validate validated validates validation validator validators validity valign valley valor "
    "valores valuable value valued values valve vancouver vanilla vapor varchar variable variables "
    "variance variant variants variation variations varied varies varieties variety various varying "
    "vault vector vectors vegan vegas veget vegetable vegetables vehicle vehicles velocity vendor "
    "vendors venez venezuela venture venue venues verbal verbose verdict verification verified verify "
    "vermont versatile verse version versions versus vertex vertical vertices vessel vessels veter "
    "veteran veterans viable viagra vibrant victim victims victor victoria victory video videos "
    "vietnam viewed viewer viewers viewing viewport views vigil villa village villages ville vincent "
    "vintage vinyl violated violation violations violence violent viral virgin virginia virtual "
    "virtually virtue virus visibility visible vision visit visited visiting visitor visitors visits "
    "vista visual vital vitamin vladimir vocab vocabulary vocal voice voices volatile volcan voltage "
    "volume volumes volunt voluntary volunte volunteer volunteers voted voter voters votes voting "
    "votre vrouw vrouwen vulner vulnerability vulnerable wages waist waited waiting wales walked "
    "walker walking walks wallace wallet walls walmart walter wanna wanted wanting wants warehouse "
    "warfare warming warned warner warning warnings warrant warranty warren warrior warriors washed "
    "washing washington waste wasted watch watched watches watching water waters watson waves wayne "
    "weaken weakness wealth wealthy weapon weapons wearing wears weather webcam webpack website "
    "websites wedding wednesday weekend weekends weekly weeks weigh weight weighted weights weird "
    "weiter welcome welcomed welcoming welfare wellness wells werden weren western whatever whats "
    "whatsoever wheat wheel wheels whenever where whereas wherever whether which while whilst whisper "
    "white whites whitespace whoever whole wholes wholesale whose widely wider wides widespread "
    "widget widgets width wieder wikipedia wildlife william williams willing willingness wilson "
    "window windows winds wings winner winners winning winter wireless wires wiring wisconsin wisdom "
    "wished wishes witch withdraw withdrawal within without witness witnessed witnesses wives wizard "
    "woman women wonder wondered wonderful wondering wooden woods worden words worked worker workers "
    "workflow workforce working workout workplace works worksheet workshop workshops workspace world "
    "worlds worldwide worried worries worry worse worship worst worth worthy would wouldn wound "
    "wounded wounds wrapped wrapper wreck wrest wrestling wright wrist write writer writers writes "
    "writing written wrong wrote wurde xmlns xrange yahoo yards years yellow yemen yesterday yield "
    "yields young younger youngest yours yourself youth youtube zealand zeros zhang zombie zones "
).split()


def _hashes(words: "list[str]") -> "set[int]":
    """_hash of every word at once, by C code: the words side by side in one integer, a 64-bit
    lane each (right-aligned, so a shorter word's leading zeros add nothing), and Horner's rule
    run once per letter position over all the lanes, each kept to 32 bits."""
    longest = max(map(len, words))
    letters = "".join(w.rjust(longest, "\0") for w in words).encode("ascii").translate(b"\0" + _LOWER_BIT[1:])
    lanes = bytearray(8 * len(words))
    low_halves = int.from_bytes(b"\xff\xff\xff\xff\0\0\0\0" * len(words), "little")
    h = 0
    for i in range(longest):
        lanes[0::8] = letters[i::longest]
        h = (h * 31 + int.from_bytes(lanes, "little")) & low_halves
    return set(struct.unpack(f"<{len(words)}Q", h.to_bytes(8 * len(words), "little")))


_COMMON.update(_hashes(COMMON_WORDS))
