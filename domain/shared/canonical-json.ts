import canonicalize from 'canonicalize';

const NOT_PLAIN = Symbol('not plain JSON data');

/**
 * Keys JavaScript enumerates before all others, in numeric order, whatever order they were
 * set in: an object rebuilt with them could not hold its keys in RFC 8785 order.
 */
const INDEX_LIKE = /^(?:0|[1-9][0-9]*)$/;

/**
 * A copy of `value` whose objects hold their keys in RFC 8785 order (UTF-16 code units, what
 * `sort()` does), or NOT_PLAIN when it is anything but plain JSON data (a class instance, a
 * toJSON, undefined, a non-finite number, a hole, an index-like or `__proto__` key).
 */
const sortedCopy = (value: unknown): unknown => {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : NOT_PLAIN;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const out: unknown[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          const child = sortedCopy(value[i]);
          if (child === NOT_PLAIN) return NOT_PLAIN;
          out[i] = child;
        }
        return out;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
      const source = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(source).sort()) {
        if (key === '__proto__' || INDEX_LIKE.test(key)) return NOT_PLAIN;
        const child = sortedCopy(source[key]);
        if (child === NOT_PLAIN) return NOT_PLAIN;
        out[key] = child;
      }
      return out;
    }
    default:
      return NOT_PLAIN;
  }
};

/**
 * RFC 8785 canonical JSON, as the `canonicalize` package writes it, in one native
 * `JSON.stringify` of a key-sorted copy: for plain JSON data (every event read from the log)
 * that is the same text several times faster, and a rebuild canonicalises every event to
 * check its MAC. Anything else — and any string JSON.stringify had to escape as a lone
 * surrogate, which RFC 8785 refuses — goes to the package, which answers or throws as before.
 */
export const fastCanonicalize = (value: unknown): string | undefined => {
  let text: string | undefined;
  try {
    const copy = sortedCopy(value);
    if (copy !== NOT_PLAIN) text = JSON.stringify(copy);
  } catch {
    // Nesting too deep for recursion: the package walks it with a stack of its own.
    text = undefined;
  }
  if (text !== undefined && !text.includes('\\ud') && !text.includes('\\uD')) return text;
  return canonicalize(value);
};
