import { COSIGNATURE_V1, parseVkey } from '../../domain/audit/note.ts';
import type { Witness } from '../../domain/audit/witness-protocol.ts';
import { InvalidAuditConfig } from './audit-key.ts';

/**
 * CUSTODIAN_WITNESSES: the witnesses whose cosignatures the checkpoints take, separated by
 * commas or white space, each a C2SP cosignature verifier key
 * (`<name>+<hex id>+<base64(0x04 ‖ Ed25519 key)>`), alone or as `<vkey>=<base URL>` for a
 * witness the service submits its checkpoints to (c2sp.org/tlog-witness, at
 * `<base URL>/add-checkpoint`). A vkey's base64 of 33 bytes has no padding, so the first `=`
 * starts the URL. Anything else is a configuration error.
 */
export const witnessesOf = (text: string | undefined): Witness[] => {
  const witnesses = (text ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((entry): Witness => {
      const eq = entry.indexOf('=');
      const vkey = eq < 0 ? entry : entry.slice(0, eq);
      const key = parseVkey(vkey);
      if (!key || key.type !== COSIGNATURE_V1)
        throw new InvalidAuditConfig(
          `CUSTODIAN_WITNESSES holds ${JSON.stringify(vkey)}, which is not a witness cosignature verifier key (<name>+<hex id>+<base64 of 0x04 and the Ed25519 key>), alone or as <vkey>=<base URL>`,
        );
      return { key, url: eq < 0 ? null : baseUrlOf(entry.slice(eq + 1), key.name) };
    });
  const names = witnesses.map((w) => `${w.key.name}+${w.key.id}`);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new InvalidAuditConfig(`CUSTODIAN_WITNESSES lists the witness ${twice.split('+')[0]} twice: list each witness once`);
  // One key is one witness, whatever it is named: the same key under two names would count twice toward the quorum.
  const keys = witnesses.map((w) => w.key.key.toString('hex'));
  const shared = witnesses.find((_, i) => keys.indexOf(keys[i]!) !== i);
  if (shared)
    throw new InvalidAuditConfig(`CUSTODIAN_WITNESSES lists the key of the witness ${shared.key.name} under two names: one key is one witness, list it once`);
  return witnesses;
};

const baseUrlOf = (text: string, name: string): string => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidAuditConfig(
      `CUSTODIAN_WITNESSES gives the witness ${name} the URL ${JSON.stringify(text)}, which is not one: write <vkey>=http(s)://host[:port][/prefix]`,
    );
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password)
    throw new InvalidAuditConfig(
      `CUSTODIAN_WITNESSES gives the witness ${name} the URL ${JSON.stringify(text)}: a witness's base URL is http(s)://host[:port][/prefix], with no query, fragment or credentials`,
    );
  // `<base URL>/add-checkpoint`: one slash between them however the base was written.
  return url.href.replace(/\/+$/, '');
};

/**
 * CUSTODIAN_WITNESS_QUORUM: how many witnesses must cosign a checkpoint before it is served as
 * witnessed; default every witness with a URL. At least 1 and at most that many.
 */
export const witnessQuorumOf = (text: string | undefined, witnesses: readonly Witness[]): number => {
  const submitted = witnesses.filter((w) => w.url !== null).length;
  if (text === undefined || text.trim() === '') return submitted;
  const n = Number(text.trim());
  if (!/^[0-9]+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1 || n > witnesses.length)
    throw new InvalidAuditConfig(
      `CUSTODIAN_WITNESS_QUORUM is ${JSON.stringify(text)}: give a whole number from 1 to the ${witnesses.length} witnesses in CUSTODIAN_WITNESSES`,
    );
  return n;
};

/** CUSTODIAN_WITNESS_INTERVAL_MS: the most often a checkpoint is submitted to one witness for one tenant (default 1000). */
export const witnessIntervalOf = (text: string | undefined): number => {
  if (text === undefined || text.trim() === '') return 1000;
  const n = Number(text.trim());
  if (!/^[0-9]+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 10)
    throw new InvalidAuditConfig(`CUSTODIAN_WITNESS_INTERVAL_MS is ${JSON.stringify(text)}: give a whole number of milliseconds, at least 10`);
  return n;
};
