import { sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkpointText } from '../../../domain/audit/entries.ts';
import { consistencyProof, leafHash, rootOf, type NodeSource } from '../../../domain/audit/merkle.ts';
import { formatNote, parseVkey, signatureLine } from '../../../domain/audit/note.ts';
import { addCheckpointBody } from '../../../domain/audit/witness-protocol.ts';
import { freePort } from '../../support/free-port.ts';
import { startOmniwitness, verifyCosigned, witnessBinaries, witnessKey, type RunningOmniwitness, type WitnessBinaries } from '../../support/omniwitness.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

// Building omniwitness the first time (Go module proxy, then a cached binary) and waiting on its answers: not timed.
vi.setConfig({ testTimeout: 300_000 });

/**
 * The witness network's own software: transparency-dev's omniwitness, told of the tenant's log
 * (`--additional_logs`: its origin and note verifier key), and the service configured with the
 * witness (`CUSTODIAN_WITNESSES=<vkey>=<URL>`) pushing its checkpoints to it (c2sp.org/tlog-witness).
 */
const bins: WitnessBinaries | null = (() => {
  const b = witnessBinaries();
  // Said in one line and skipped on a machine without Go; under CI, where Go is installed, a missing one fails.
  if (!b && process.env.CI === 'true') throw new Error('go is not installed: CI must run the omniwitness tests');
  if (!b) console.log('go is not installed: the omniwitness tests skip');
  return b;
})();

const WITNESS = 'witness.test/omni';
let svc: TestService;
let witness: RunningOmniwitness;
let vkey: string;
let origin: string;

const get = async (p: string, accept = 'text/plain') => {
  const res = await fetch(`${svc.url}${p}`, { headers: { authorization: `Bearer ${ADMIN_KEY}`, accept } });
  return { status: res.status, text: await res.text() };
};
const sizeOf = (note: string) => Number(note.split('\n')[1]);
const logSize = async () => sizeOf((await get('/v1/tenants/acme/audit/checkpoint')).text);
const activity = async (s: TestService, n: number) => {
  // Holds placed are audited: each adds an entry.
  for (let i = 0; i < n; i++)
    expect((await s.admin('POST', '/v1/tenants/acme/holds', { selector: { data_subject: `user:w${Math.random()}` }, reason: 'witnessed' })).status).toBe(201);
  await s.runner.catchUp();
};
/** Polls (no timing asserted) until the witnessed checkpoint reaches `size`; answers its note. */
const witnessedAt = async (size: number) => {
  for (;;) {
    const r = await get('/v1/tenants/acme/audit/log/checkpoint');
    if (r.status === 200 && sizeOf(r.text) >= size) return r.text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
const metric = async (s: TestService, name: string, labels: string) => {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? null : Number(line.split(' ').at(-1));
};

describe.skipIf(!bins)('omniwitness (github.com/transparency-dev/witness) witnesses the tenant log by push', () => {
  let skey: string;
  let witnessVkey: string;

  beforeAll(async () => {
    ({ skey, vkey: witnessVkey } = await witnessKey(bins!, WITNESS));
    const port = await freePort();
    svc = await startTestService({
      logOrigin: 'custodian.test/omni',
      witnesses: [{ key: parseVkey(witnessVkey)!, url: `http://127.0.0.1:${port}` }],
      witnessIntervalMs: 50,
    });
    expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
    // What the witness operator is given: the log's verifier key and its origin (the checkpoint's first line).
    vkey = (await get('/v1/audit-key?format=vkey')).text.trim();
    origin = (await get('/v1/tenants/acme/audit/checkpoint')).text.split('\n')[0]!;
    witness = await startOmniwitness(bins!, { skey, logs: [{ origin, vkey }], port });
  }, 900_000);
  afterAll(async () => {
    await svc?.stop();
    await witness?.stop();
  });

  it('cosigns the checkpoint the service submits; the cosignature verifies under the witness key with golang.org/x/mod/sumdb/note', async () => {
    await activity(svc, 3);
    const size = await logSize();
    const note = await witnessedAt(size);
    expect(note.split('\n')[0]).toBe(origin);
    const verified = await verifyCosigned(bins!, witnessVkey, note);
    expect(verified.code, verified.out + verified.err).toBe(0);
    expect(verified.out).toContain(`verified ${WITNESS} ${origin} ${sizeOf(note)} `);
    // The same cosignature is served with that checkpoint by the audit checkpoint route, and counted.
    const served = (await get(`/v1/tenants/acme/audit/checkpoint?size=${sizeOf(note)}`)).text;
    expect(served).toBe(note);
    expect(await metric(svc, 'custodian_witness_submissions_total', `witness="${WITNESS}",outcome="cosigned"`)).toBeGreaterThanOrEqual(1);
    expect(await metric(svc, 'custodian_witness_cosigned_size', `witness="${WITNESS}"`)).toBeGreaterThanOrEqual(sizeOf(note));
  });

  it('cosigns a bigger checkpoint after more entries: the consistency proof from the size it holds verifies', async () => {
    const first = sizeOf(await witnessedAt(1));
    await activity(svc, 2);
    const note = await witnessedAt(first + 2);
    const verified = await verifyCosigned(bins!, witnessVkey, note);
    expect(verified.code, verified.out + verified.err).toBe(0);
    expect(sizeOf(note)).toBeGreaterThan(first);
    // The earlier checkpoint keeps its own cosignature.
    expect((await verifyCosigned(bins!, witnessVkey, (await get(`/v1/tenants/acme/audit/checkpoint?size=${first}`)).text)).code).toBe(0);
  });

  it('a second instance that does not know the witness size is answered 409 with it and resends from there', async () => {
    const other = await startTestService({
      shareWith: svc,
      logOrigin: 'custodian.test/omni',
      witnesses: [{ key: parseVkey(witnessVkey)!, url: witness.url }],
      witnessIntervalMs: 50,
    });
    try {
      await activity(other, 1);
      // It starts from old 0; omniwitness holds a bigger tree, answers 409 and its size, and the resend is cosigned.
      for (;;) {
        const conflicts = await metric(other, 'custodian_witness_submissions_total', `witness="${WITNESS}",outcome="conflict"`);
        const cosigned = await metric(other, 'custodian_witness_submissions_total', `witness="${WITNESS}",outcome="cosigned"`);
        if ((conflicts ?? 0) >= 1 && (cosigned ?? 0) >= 1) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await metric(other, 'custodian_witness_submissions_total', `witness="${WITNESS}",outcome="refused_422"`)).toBe(0);
    } finally {
      await other.stop();
    }
  });

  it('refuses a rewritten history signed with the log key (422), cosigns nothing of it, and goes on cosigning the true log', async () => {
    // Quiet: the witness holds what the log holds.
    const held = sizeOf(await witnessedAt(await logSize()));
    const lines = (await get('/v1/tenants/acme/audit', 'application/json')).text.split('\n').filter(Boolean);
    expect(lines.length).toBe(held);
    // The operator rewrites entry 0, appends one, and signs the bigger tree with the log's own key.
    const forged = [lines[0]!.replace('"kind":"', '"kind":"x'), ...lines.slice(1), lines.at(-1)!];
    const leaves = forged.map((l) => leafHash(Buffer.from(l)));
    const text = checkpointText(origin, leaves.length, rootOf(leaves).toString('base64'));
    const logKey = parseVkey(vkey)!;
    const forgedNote = formatNote(text, [signatureLine(logKey.name, logKey.id, sign(null, Buffer.from(text), svc.auditKey))]);
    const src: NodeSource = { node: async (level, index) => rootOf(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level)) };
    const proof = (await consistencyProof(src, held, leaves.length)).map((p) => p.toString('base64'));
    const res = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: addCheckpointBody(held, proof, forgedNote) });
    expect(res.status).toBe(422);
    // Nor the same size with another root.
    const same = checkpointText(origin, held, rootOf(leaves.slice(0, held)).toString('base64'));
    const sameNote = formatNote(same, [signatureLine(logKey.name, logKey.id, sign(null, Buffer.from(same), svc.auditKey))]);
    expect((await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: addCheckpointBody(held, [], sameNote) })).status).toBe(422);
    // The true log goes on: its next checkpoint is cosigned as consistent with what the witness holds.
    await activity(svc, 1);
    const next = await witnessedAt(held + 1);
    expect((await verifyCosigned(bins!, witnessVkey, next)).code).toBe(0);
  });
});
