import { COMMON_WORDS } from './common-words.ts';

// weigh(text): the platform's estimate of the tokens a cl100k-class tokenizer makes of `text`.
//
// One pass over the UTF-16 code units, no regular expression and no BPE merges: the text is cut
// into the pieces cl100k's pre-tokenizer makes (a letter run with at most one leading space or
// mark, digits in runs of three, a punctuation run, white space up to a newline), and each piece
// is charged a cost fitted on the corpus in test/fixtures/fit-corpus (see fit-costs.ts there).
// The only table of words is COMMON_WORDS: words the tokenizer holds whole, looked up by hash.
// Long runs of white space are charged by their length, unlike the tokenizer, which takes a page
// of spaces for a few tokens: an answer padded with white space must not slip past a budget.

const PUNCT = 0; // anything else: punctuation, symbols, marks, surrogate halves (emoji)
const ASCII = 1; // a-z A-Z
const DIGIT = 2;
const SPACE = 3; // white space that is not a line break
const BREAK = 4; // \n \r
const LATIN = 5; // accented and extended Latin letters
const CYRILLIC = 6;
const ARABIC = 7; // and Hebrew
const HAN = 8;
const KANA = 9;
const HANGUL = 10;
const GREEK = 11;
const OTHER = 12; // letters of other scripts (Indic, Thai, Georgian, Armenian…)
const UMLAUT = 13; // ä ö ü ß: Latin letters that also mark German text (see GERMAN_WORDS)

// Per letter of each script inside a letter run, and what a run containing that script costs on
// top (the largest of its scripts'). ASCII letters are charged by run length instead (ASCII_COST).
const PER_LETTER = [0, 0, 0, 0, 0, 0.45, 0.41, 0.72, 1.09, 0.96, 0.86, 0.9, 1.2, 0.45];
const PER_RUN = [0, 0, 0, 0, 0, 0.1, 0.71, 0.47, 1.4, 1.4, 0.69, 0.5, 0.5, 0.1];

// Mean tokens of an ASCII letter run by its length (index), with no prefix, a leading space, or a
// leading mark; longer runs cost LONG_WORD per letter.
const ASCII_COST = [
  [0, 1, 1, 1.06, 1.07, 2, 1.93, 1.92, 2.05, 2.05, 1.8, 2.3, 2.1, 2.4, 2.8, 2.6, 2.8],
  [0, 1, 1, 1.01, 1.04, 1.45, 1.43, 1.8, 1.97, 2.13, 2.1, 2.5, 2.45, 2.7, 3.3, 3.3, 3.5],
  [0, 1.01, 1.1, 1.12, 1.18, 1.8, 2.1, 2.4, 2.3, 2.5, 2.45, 2.6, 2.5, 3.3, 3.5, 3.4, 3.5],
];
const LONG_WORD = 0.22;
// A word cl100k holds whole (COMMON_WORDS), lower case or capitalized, by prefix.
const COMMON_COST = [1.03, 1, 1.35];
const COMMON_MIN = 5;
// German compounds are words the tokenizer cuts finer than English or code of the same length:
// in a text with more than one ä, ö, ü or ß per GERMAN_DENSITY ASCII letters, the ASCII words of
// COMMON_MIN letters or more that are not common cost GERMAN_WORDS times as much.
const GERMAN_DENSITY = 100;
const GERMAN_WORDS = 1.27;

// Words are looked up by a 32-bit hash of their lower-case letters, computed while scanning.
const hashWord = (word: string): number => {
  let h = 0;
  for (let i = 0; i < word.length; i++) h = (Math.imul(h, 31) + (word.charCodeAt(i) | 0x20)) | 0;
  return h;
};
const COMMON = new Set(COMMON_WORDS.map(hashWord));

// A punctuation run by its segments (runs of one repeated ASCII mark: `---` is one, `();` three);
// a long segment (a rule of dashes) costs one more per LONG_SEGMENT marks; other marks one each.
const PUNCT_COST = [0, 1, 1.01, 1.08, 1.16, 1.36, 2.3];
const MORE_SEGMENTS = 0.8;
const LONG_SEGMENT = 16;
// A non-ASCII mark repeated (a box-drawing rule) costs this much after its first.
const REPEATED_MARK = 1 / 3;
// White space runs longer than this weigh one token per WS_CHARS characters (as much as prose);
// shorter ones (indentation, an aligned continuation line) as the tokenizer charges them.
const WS_RUN = 64;
const WS_CHARS = 4;

const CLASS = new Uint8Array(65536);
const mark = (from: number, to: number, kind: number): void => {
  CLASS.fill(kind, from, to + 1);
};
mark(0x41, 0x5a, ASCII);
mark(0x61, 0x7a, ASCII);
mark(0x30, 0x39, DIGIT);
for (const c of [0x09, 0x0b, 0x0c, 0x20, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]) CLASS[c] = SPACE;
mark(0x2000, 0x200a, SPACE);
CLASS[0x0a] = BREAK;
CLASS[0x0d] = BREAK;
for (const c of [0xaa, 0xb5, 0xba]) CLASS[c] = LATIN;
mark(0xc0, 0x2ff, LATIN);
CLASS[0xd7] = PUNCT;
CLASS[0xf7] = PUNCT;
for (const c of [0xc4, 0xd6, 0xdc, 0xdf, 0xe4, 0xf6, 0xfc]) CLASS[c] = UMLAUT;
mark(0x1e00, 0x1eff, LATIN);
mark(0xff21, 0xff3a, LATIN);
mark(0xff41, 0xff5a, LATIN);
mark(0xff10, 0xff19, DIGIT);
mark(0x370, 0x3ff, GREEK);
mark(0x1f00, 0x1fff, GREEK);
mark(0x400, 0x52f, CYRILLIC);
mark(0x483, 0x489, PUNCT);
mark(0x531, 0x587, OTHER);
mark(0x5d0, 0x5ea, ARABIC);
mark(0x620, 0x64a, ARABIC);
mark(0x660, 0x669, DIGIT);
mark(0x66e, 0x6d3, ARABIC);
CLASS[0x670] = PUNCT;
mark(0x6f0, 0x6f9, DIGIT);
mark(0x6fa, 0x6ff, ARABIC);
mark(0x900, 0xdff, OTHER);
mark(0xe00, 0xe7f, OTHER);
mark(0x10a0, 0x10ff, OTHER);
mark(0x1100, 0x11ff, HANGUL);
mark(0x3130, 0x318f, HANGUL);
mark(0xac00, 0xd7a3, HANGUL);
mark(0x3005, 0x3007, HAN);
mark(0x3041, 0x3096, KANA);
mark(0x309d, 0x309f, KANA);
mark(0x30a1, 0x30fa, KANA);
mark(0x30fc, 0x30ff, KANA);
mark(0xff66, 0xff9f, KANA);
mark(0x3400, 0x4dbf, HAN);
mark(0x4e00, 0x9fff, HAN);
mark(0xf900, 0xfaff, HAN);

const isLetter = (kind: number): boolean => kind === ASCII || kind >= LATIN;

const asciiRun = (prefix: number, letters: number): number => {
  const costs = ASCII_COST[prefix]!;
  return letters < costs.length ? costs[letters]! : costs[costs.length - 1]! + (letters - costs.length + 1) * LONG_WORD;
};

/** One hump of a camelCase word: a common word costs about one token, others by length. */
const humpOf = (hash: number, length: number, slot: number): number => (length >= COMMON_MIN && COMMON.has(hash) ? COMMON_COST[slot]! : asciiRun(slot, length));

/** Estimated cl100k tokens of `text`; 0 only for the empty string. Pure and deterministic. */
export function weigh(text: string): number {
  const n = text.length;
  let total = 0;
  // The costs of long uncommon ASCII words, and what tells German text (see GERMAN_WORDS).
  let uncommon = 0;
  let letters = 0;
  let umlauts = 0;
  // How the piece at i starts: 0 bare, 1 after a space it took, 2 after a mark it took.
  let prefix = 0;
  let i = 0;
  while (i < n) {
    const kind = CLASS[text.charCodeAt(i)]!;
    if (isLetter(kind)) {
      const slot = prefix;
      let ascii = 0;
      let extra = 0;
      let lift = 0;
      let hash = 0;
      // Upper-case letters after the first: a camel-case or all-caps run is no common word.
      let inner = 0;
      // camelCase is charged by its humps: `createProjectionRunner` is create + Projection + Runner.
      let humps = 0;
      let humpCost = 0;
      let humpHash = 0;
      let humpLength = 0;
      let lower = false;
      let j = i;
      for (; j < n; j++) {
        const c = text.charCodeAt(j);
        const k = CLASS[c]!;
        if (k === ASCII) {
          const upper = c < 0x61;
          if (upper && lower) {
            humpCost += humpOf(humpHash, humpLength, humps === 0 ? slot : 0);
            humps++;
            humpHash = 0;
            humpLength = 0;
          }
          ascii++;
          hash = (Math.imul(hash, 31) + (c | 0x20)) | 0;
          humpHash = (Math.imul(humpHash, 31) + (c | 0x20)) | 0;
          humpLength++;
          lower = !upper;
          if (upper && j > i) inner++;
        } else if (k >= LATIN) {
          if (k === UMLAUT) umlauts++;
          extra += PER_LETTER[k]!;
          if (PER_RUN[k]! > lift) lift = PER_RUN[k]!;
          lower = false;
        } else break;
      }
      letters += ascii;
      if (extra === 0 && humps > 0) total += humpCost + humpOf(humpHash, humpLength, 0);
      else if (extra === 0 && inner === 0 && ascii >= COMMON_MIN && COMMON.has(hash)) total += COMMON_COST[slot]!;
      else {
        const cost = asciiRun(extra === 0 ? slot : 0, ascii);
        if (ascii >= COMMON_MIN) uncommon += cost;
        else total += cost;
        total += extra === 0 ? 0 : lift + extra;
      }
      prefix = 0;
      i = j;
      continue;
    }
    if (kind === DIGIT) {
      let j = i + 1;
      while (j < n && CLASS[text.charCodeAt(j)] === DIGIT) j++;
      total += Math.ceil((j - i) / 3);
      prefix = 0;
      i = j;
      continue;
    }
    if (kind === SPACE || kind === BREAK) {
      let j = i;
      let lastBreak = -1;
      for (; j < n; j++) {
        const k = CLASS[text.charCodeAt(j)]!;
        if (k === BREAK) lastBreak = j;
        else if (k !== SPACE) break;
      }
      let pieces = lastBreak >= 0 ? 1 : 0;
      const rest = j - (lastBreak >= 0 ? lastBreak + 1 : i);
      prefix = 0;
      if (rest > 0) {
        const next = j < n ? CLASS[text.charCodeAt(j)]! : -1;
        const last = text.charCodeAt(j - 1);
        if (next >= 0 && (isLetter(next) || (next === PUNCT && last === 0x20))) {
          // The last white space character opens the next piece.
          if (rest > 1) pieces++;
          prefix = 1;
        } else pieces += next < 0 || rest === 1 ? 1 : 2;
      }
      const run = j - i;
      total += run > WS_RUN ? Math.ceil(run / WS_CHARS) : pieces;
      i = j;
      continue;
    }
    // Punctuation: one mark right before a letter opens that letter's piece, unless a space
    // already did.
    if (prefix === 0 && i + 1 < n && isLetter(CLASS[text.charCodeAt(i + 1)]!)) {
      prefix = 2;
      i++;
      continue;
    }
    let segments = 0;
    let other = 0;
    let long = 0;
    let last = -1;
    // Where the current segment of one repeated ASCII mark began (-1: none open).
    let from = -1;
    let j = i;
    for (; j < n; j++) {
      const c = text.charCodeAt(j);
      if (CLASS[c] !== PUNCT) break;
      if (c === last && c < 0x80) continue;
      if (from >= 0) long += Math.floor((j - from) / LONG_SEGMENT);
      from = -1;
      if (c >= 0x80) other += c === last ? REPEATED_MARK : 1;
      else {
        segments++;
        from = j;
      }
      last = c;
    }
    if (from >= 0) long += Math.floor((j - from) / LONG_SEGMENT);
    while (j < n && CLASS[text.charCodeAt(j)] === BREAK) j++;
    const top = PUNCT_COST.length - 1;
    total += (segments <= top ? PUNCT_COST[segments]! : PUNCT_COST[top]! + (segments - top) * MORE_SEGMENTS) + long + other;
    prefix = 0;
    i = j;
  }
  total += umlauts * GERMAN_DENSITY > letters ? uncommon * GERMAN_WORDS : uncommon;
  return n === 0 ? 0 : Math.max(1, Math.round(total));
}
