/**
 * One spelling per subject (SPEC §6 "revocations stick"): a revoked `user:ada` or
 * `apikey:K1` must not come back as `User:ada`, ` user:ada` or `APIKEY:K1`. Rather than
 * folding spellings together (and guessing which one a grant meant), a subject that is not
 * already in its one form is refused: no white space at either end, no control character,
 * and a kind prefix (the part before the first `:`) in lower case. The rest after the prefix
 * is the subject's own name and keeps its case (`apikey:K1` and `apikey:k1` are two keys).
 * People keys in tenant settings follow the same rule, so a listed person always matches.
 */
// C0 and C1 controls, DEL included.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why a subject is not in its one spelling, or null. */
export const subjectProblem = (subject: string): string | null => {
  if (subject.trim() !== subject) return 'a subject has no white space at either end';
  if (CONTROL.test(subject)) return 'a subject has no control characters';
  const colon = subject.indexOf(':');
  if (colon > 0) {
    const kind = subject.slice(0, colon);
    if (kind !== kind.toLowerCase()) return `the kind prefix is lower case: ${kind.toLowerCase()}:…`;
  }
  return null;
};

/**
 * The same rule as JSON Schema patterns (both must match), for documents that describe a
 * subject field: no control character, no white space at either end, and no upper-case
 * letter (A–Z) before the first `:` when one follows a kind.
 */
export const SUBJECT_PATTERNS = [
  '^[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]([^\\u0000-\\u001f\\u007f-\\u009f]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff])?$',
  '^([^:]*|:[\\s\\S]*|[^:A-Z]+:[\\s\\S]*)$',
] as const;
