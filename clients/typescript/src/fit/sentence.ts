const END = /[.!?。！？](?=\s|$)|[。！？]/u;
const LONGEST = 200;

/**
 * The first sentence of a text, cut from it and never rewritten: its first lines that carry words,
 * up to the first full stop (or LONGEST characters, then "…").
 */
export const firstSentence = (lines: readonly string[]): string => {
  const words: string[] = [];
  let size = 0;
  let fenced = false;
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('```') || line.startsWith('~~~')) {
      fenced = !fenced;
      if (words.length > 0) break;
      continue;
    }
    if (fenced || line === '') {
      if (words.length > 0 && !fenced) break;
      continue;
    }
    words.push(line);
    size += line.length;
    if (END.test(line) || size >= LONGEST) break;
  }
  const text = words.join(' ').replace(/\s+/g, ' ');
  const stop = END.exec(text);
  const cut = stop ? text.slice(0, stop.index + stop[0].length) : text;
  if (cut.length <= LONGEST) return cut;
  const chars = Array.from(cut);
  return chars.length <= LONGEST ? cut : chars.slice(0, LONGEST).join('') + '…';
};
