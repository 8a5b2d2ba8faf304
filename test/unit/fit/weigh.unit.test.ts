import { readdirSync, readFileSync } from 'node:fs';
import { getEncoding } from 'js-tiktoken';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { weigh } from '../../../clients/typescript/src/fit/weigh.ts';

const dir = new URL('../../fixtures/fit-corpus/docs/', import.meta.url);
const corpus = readdirSync(dir)
  .sort()
  .map((name) => ({ name, text: readFileSync(new URL(name, dir), 'utf8') }));
const cl100k = getEncoding('cl100k_base');

describe('weigh', () => {
  it('is within 3% of js-tiktoken cl100k_base on average over the mixed corpus', () => {
    const kinds = new Set(corpus.map((doc) => doc.name.replace(/^\d+-/, '').replace(/\.txt$/, '')));
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    for (const kind of [
      'prose-en',
      'prose-de',
      'prose-fr',
      'prose-es',
      'prose-zh',
      'prose-ja',
      'prose-ru',
      'prose-ar',
      'typescript',
      'python',
      'json',
      'log',
      'markdown',
      'diff',
    ]) {
      expect(kinds, kind).toContain(kind);
    }
    let error = 0;
    for (const doc of corpus) {
      const tokens = cl100k.encode(doc.text).length;
      error += Math.abs(weigh(doc.text) - tokens) / tokens;
    }
    const mape = (100 * error) / corpus.length;
    console.log(`weigh: MAPE ${mape.toFixed(2)}% over ${corpus.length} documents vs js-tiktoken cl100k_base`);
    expect(mape).toBeLessThanOrEqual(3);
  });

  it('charges a long run of white space by its length, where the tokenizer takes it for a few tokens', () => {
    const page = ' '.repeat(4000);
    expect(cl100k.encode(page).length).toBeLessThan(50);
    expect(weigh(page)).toBe(1000);
    expect(weigh('\n'.repeat(400) + '\t'.repeat(400))).toBe(200);
    // Indentation of ordinary code is still one piece.
    expect(weigh('if (x) {\n        return y;\n}\n')).toBe(cl100k.encode('if (x) {\n        return y;\n}\n').length);
  });

  it('weighs nothing as nothing and anything else as at least one token', () => {
    expect(weigh('')).toBe(0);
    fc.assert(fc.property(fc.string({ minLength: 1, unit: 'binary' }), (text) => weigh(text) >= 1));
  });

  it('gives the same answer for the same text', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (text) => weigh(text) === weigh(`${text}`)));
    for (const doc of corpus.slice(0, 20)) expect(weigh(doc.text)).toBe(weigh(doc.text.slice()));
  });

  it('grows with the text: a document weighs at least what its first half weighs, less a token', () => {
    fc.assert(
      fc.property(fc.constantFrom(...corpus), fc.nat(), (doc, at) => {
        const cut = at % (doc.text.length + 1);
        return weigh(doc.text) + 1 >= weigh(doc.text.slice(0, cut));
      }),
    );
  });
});
