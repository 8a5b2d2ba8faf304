/** Deeper than any request shape we take; deep enough for plugin record bodies. */
export const MAX_DEPTH = 64;

/**
 * The nesting depth of JSON text, measured on the text before it is parsed: brackets count
 * only outside strings. Stops counting as soon as `limit` is passed.
 */
export const depthExceeds = (text: string, limit = MAX_DEPTH): boolean => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
};
