import { describe, expect, it } from 'vitest';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { InvalidAuditConfig } from '../../../adapters/keys/audit-key.ts';
import { witnessIntervalOf, witnessQuorumOf, witnessesOf } from '../../../adapters/keys/witness-keys.ts';
import { Registry } from 'prom-client';
import { registerWitnessMetrics } from '../../../adapters/metrics/witness-metrics.ts';
import { startWitnessSubmitter, type SignedCheckpoint } from '../../../adapters/witness/submitter.ts';
import { checkpointText } from '../../../domain/audit/entries.ts';
import { consistencyProof, leafHash, rootOf, type NodeSource } from '../../../domain/audit/merkle.ts';
import { COSIGNATURE_V1, ED25519, formatNote, noteKey, parseNote, rawEd25519, signatureLine, signedBy, vkeyOf } from '../../../domain/audit/note.ts';
import { addCheckpointBody, readWitnessAnswer, resendFrom, retryDelayMs } from '../../../domain/audit/witness-protocol.ts';
import { startWitness } from '../../support/witness.ts';

describe('add-checkpoint request body (c2sp.org/tlog-witness)', () => {
  const note = 'log.example/t\n2\nAAAA\n\n— log.example abcd\n';

  it('is the old size line, one proof hash a line, an empty line, then the note', () => {
    expect(addCheckpointBody(1, ['aGFzaDE=', 'aGFzaDI='], note)).toBe(`old 1\naGFzaDE=\naGFzaDI=\n\n${note}`);
  });

  it('says old 0 and sends no proof line for a witness that never cosigned the log', () => {
    expect(addCheckpointBody(0, [], note)).toBe(`old 0\n\n${note}`);
  });

  it('refuses what no witness could read: a negative or fractional size, more than 63 proof lines, a note without its final newline', () => {
    expect(() => addCheckpointBody(-1, [], note)).toThrow(RangeError);
    expect(() => addCheckpointBody(1.5, [], note)).toThrow(RangeError);
    expect(() => addCheckpointBody(1, Array(64).fill('aGFzaA=='), note)).toThrow(RangeError);
    expect(() => addCheckpointBody(1, [], note.trimEnd())).toThrow(RangeError);
  });
});

describe("a witness's answer", () => {
  it('200: the signature lines it answered, one a line', () => {
    expect(readWitnessAnswer(200, null, '— w1 AAAA\n— w2 BBBB\n')).toEqual({ kind: 'cosigned', lines: ['— w1 AAAA', '— w2 BBBB'] });
  });

  it('409 with text/x.tlog.size: the size the witness holds, to resend from', () => {
    expect(readWitnessAnswer(409, 'text/x.tlog.size', '20852014\n')).toEqual({ kind: 'conflict', size: 20852014 });
    expect(readWitnessAnswer(409, 'text/x.tlog.size; charset=utf-8', '0\n')).toEqual({ kind: 'conflict', size: 0 });
  });

  it('409 without a size it can be resent from (another type, not decimal, a leading zero) is a refusal', () => {
    expect(readWitnessAnswer(409, 'text/plain', '12\n')).toEqual({ kind: 'refused', status: 409 });
    expect(readWitnessAnswer(409, 'text/x.tlog.size', 'twelve\n')).toEqual({ kind: 'refused', status: 409 });
    expect(readWitnessAnswer(409, 'text/x.tlog.size', '012\n')).toEqual({ kind: 'refused', status: 409 });
  });

  it('any other status is a refusal by that status', () => {
    for (const status of [400, 403, 404, 422, 429, 500]) expect(readWitnessAnswer(status, null, '')).toEqual({ kind: 'refused', status });
  });

  it('a witness that holds more than the log ever had cannot be sent a proof', () => {
    expect(resendFrom(5, 10)).toEqual({ kind: 'from', oldSize: 5 });
    expect(resendFrom(10, 10)).toEqual({ kind: 'from', oldSize: 10 });
    expect(resendFrom(11, 10)).toEqual({ kind: 'ahead' });
  });

  it('a failing witness is tried again after a wait that doubles, at most a minute', () => {
    expect([0, 1, 2, 3].map((f) => retryDelayMs(f, 1000))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(30, 1000)).toBe(60_000);
    expect(retryDelayMs(3, 120_000)).toBe(120_000);
  });
});

describe('CUSTODIAN_WITNESSES, _QUORUM and _INTERVAL_MS', () => {
  const w1 = startWitness('witness.example/w1', {});
  const w2 = startWitness('witness.example/w2', {});

  it('takes plain vkeys (posted cosignatures) and <vkey>=<base URL> (submitted to), by commas or spaces', () => {
    const ws = witnessesOf(`${w1.vkey}, ${w2.vkey}=https://w2.example/prefix/`);
    expect(ws.map((w) => [w.key.name, w.url])).toEqual([
      ['witness.example/w1', null],
      ['witness.example/w2', 'https://w2.example/prefix'],
    ]);
  });

  it('refuses a URL that is not http(s) or carries a query or credentials, and a witness listed twice', () => {
    for (const url of ['ftp://w.example', 'https://w.example/?a=1', 'https://u:p@w.example', 'not a url'])
      expect(() => witnessesOf(`${w1.vkey}=${url}`)).toThrow(InvalidAuditConfig);
    expect(() => witnessesOf(`${w1.vkey} ${w1.vkey}=http://127.0.0.1:1`)).toThrow(/twice/);
  });

  it('one key is one witness: the same key under another name is refused (it would count twice toward the quorum)', () => {
    const alias = vkeyOf(noteKey('witness.example/alias', COSIGNATURE_V1, witnessesOf(w1.vkey)[0]!.key.key));
    expect(witnessesOf(alias)[0]!.key.name).toBe('witness.example/alias');
    expect(() => witnessesOf(`${w1.vkey}=http://127.0.0.1:1 ${alias}=http://127.0.0.1:2`)).toThrow(/under two names/);
  });

  it('the quorum is every witness with a URL unless set, from 1 to the witnesses listed', () => {
    const ws = witnessesOf(`${w1.vkey} ${w2.vkey}=http://127.0.0.1:1`);
    expect(witnessQuorumOf(undefined, ws)).toBe(1);
    expect(witnessQuorumOf('2', ws)).toBe(2);
    for (const bad of ['0', '3', '1.5', 'two']) expect(() => witnessQuorumOf(bad, ws)).toThrow(InvalidAuditConfig);
  });

  it('the interval is 1000 ms unless set, a whole number of at least 10', () => {
    expect(witnessIntervalOf(undefined)).toBe(1000);
    expect(witnessIntervalOf('250')).toBe(250);
    for (const bad of ['5', '-1', '1e3', 'x']) expect(() => witnessIntervalOf(bad)).toThrow(InvalidAuditConfig);
  });
});

describe('the submitter against a tlog-witness (test/support/witness.ts)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519') as { privateKey: KeyObject; publicKey: KeyObject };
  const logKey = noteKey('log.example', ED25519, rawEd25519(publicKey));
  const origin = 'log.example/t';
  const leaves: Buffer[] = [];
  const src: NodeSource = { node: async (level, index) => rootOf(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level)) };
  const checkpoint = async (size: number): Promise<SignedCheckpoint> => {
    const root = rootOf(leaves.slice(0, size)).toString('base64');
    const text = checkpointText(origin, size, root);
    return { text, size, root, line: signatureLine(logKey.name, logKey.id, sign(null, Buffer.from(text), privateKey)) };
  };
  const grow = (n: number) => {
    for (let i = 0; i < n; i++) leaves.push(leafHash(Buffer.from(`entry ${leaves.length}`)));
  };

  const submitter = (witness: ReturnType<typeof startWitness>, sent: string[]) => {
    const metrics = { registry: new Registry() } as Parameters<typeof registerWitnessMetrics>[0];
    const kept: { size: number; line: string }[] = [];
    const s = startWitnessSubmitter({
      witnesses: [{ key: witness.key, url: 'http://witness.example' }],
      intervalMs: 3_600_000,
      tenants: async () => ['t'],
      logSize: async () => leaves.length,
      checkpoint: async (_t, size) => checkpoint(size),
      consistency: async (_t, from, to) => (await consistencyProof(src, from, to)).map((p) => p.toString('base64')),
      keep: async (_t, cp, key, lines) => {
        const line = lines.find((l) => signedBy(parseNote(formatNote(cp.text, [l]))!, key));
        if (!line) return E.left({ error: 'invalid' as const });
        kept.push({ size: cp.size, line });
        return E.right(null);
      },
      metrics: registerWitnessMetrics(metrics, [witness.key.name]),
      now: () => Date.now(),
      post: async (_url, body) => {
        sent.push(body.split('\n')[0]!);
        const a = witness.addCheckpoint(body);
        return { status: a.status, contentType: a.status === 409 ? 'text/x.tlog.size' : 'text/plain', body: a.body };
      },
    });
    return { s, kept, metrics };
  };

  it('sends old 0 first; on 409 resends from the size the witness answered, with the consistency proof from it, and keeps the cosignature', async () => {
    const witness = startWitness('witness.example/w', { [origin]: logKey });
    grow(3);
    // The witness already cosigned size 3 (another instance of the log submitted it).
    expect(witness.addCheckpoint(addCheckpointBody(0, [], formatNote((await checkpoint(3)).text, [(await checkpoint(3)).line]))).status).toBe(200);
    grow(4);
    const sent: string[] = [];
    const { s, kept, metrics } = submitter(witness, sent);
    await s.submitNow('t');
    expect(sent).toEqual(['old 0', 'old 3']);
    expect(kept.map((k) => k.size)).toEqual([7]);
    expect(witness.latest(origin)).toBe(7);
    const text = await metrics.registry.metrics();
    expect(text).toContain('custodian_witness_submissions_total{witness="witness.example/w",outcome="conflict"} 1');
    expect(text).toContain('custodian_witness_submissions_total{witness="witness.example/w",outcome="cosigned"} 1');
    // Nothing new: nothing sent. One more entry: sent from the size it holds now, no 409.
    await s.submitNow('t');
    expect(sent).toHaveLength(2);
    grow(1);
    await s.submitNow('t');
    expect(sent.at(-1)).toBe('old 7');
    expect(kept.map((k) => k.size)).toEqual([7, 8]);
    await s.stop();
  });

  it('a refusal is counted by its status, nothing is kept, and the witness is not tried again before its wait', async () => {
    // A witness that does not know this log: 404.
    const witness = startWitness('witness.example/stranger', {});
    const sent: string[] = [];
    const { s, kept, metrics } = submitter(witness, sent);
    await s.submitNow('t');
    await s.submitNow('t');
    expect(sent).toEqual(['old 0']);
    expect(kept).toEqual([]);
    expect(await metrics.registry.metrics()).toContain('custodian_witness_submissions_total{witness="witness.example/stranger",outcome="refused_404"} 1');
    await s.stop();
  });
});
