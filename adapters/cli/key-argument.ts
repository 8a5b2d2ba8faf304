import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseVkey, type NoteKey } from '../../domain/audit/note.ts';
import { oneLine } from './failure.ts';

/**
 * A key on the command line is given as its text or as the path of a file holding it, alike,
 * for every key option (`--public-key`, `--vkey`, `--witness`). The text is taken when it reads
 * as that kind of key; otherwise the argument is a path, and the file must hold one.
 */
export type KeyArgument<K> = { readonly key: K } | { readonly problem: string };

export const keyArgument = <K>(option: string, value: string, kind: string, read: (text: string) => K | null): KeyArgument<K> => {
  const asText = read(value);
  if (asText !== null) return { key: asText };
  let content: string;
  try {
    content = readFileSync(value, 'utf8');
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return {
      problem: `${option} ${oneLine(value, 80)} is neither ${kind} nor a file that can be read (${why}): give the key's text or the path of a file holding it`,
    };
  }
  const fromFile = read(content);
  return fromFile !== null ? { key: fromFile } : { problem: `${option}: the file ${oneLine(value, 200)} does not hold ${kind}` };
};

/** PEM text of a public key (SPKI), as GET /v1/audit-key answers it; null for anything else. */
export const readPublicKeyPem = (text: string): string | null => {
  if (!text.includes('-----BEGIN PUBLIC KEY-----')) return null;
  try {
    createPublicKey(text);
    return text;
  } catch {
    return null;
  }
};

/** A note verifier key of the given type (the log's Ed25519, or a witness's cosignature key). */
export const readVkeyOfType =
  (type: number) =>
  (text: string): NoteKey | null => {
    const key = parseVkey(text);
    return key && key.type === type ? key : null;
  };
