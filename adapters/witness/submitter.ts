import * as E from 'fp-ts/lib/Either.js';
import type { Logger } from 'pino';
import { formatNote, type NoteKey } from '../../domain/audit/note.ts';
import { addCheckpointBody, readWitnessAnswer, resendFrom, retryDelayMs, type Witness } from '../../domain/audit/witness-protocol.ts';
import type { Refusal } from '../../domain/shared/refusal.ts';
import { refusedOutcome, type SubmissionOutcome, type WitnessMetrics } from '../metrics/witness-metrics.ts';

/** One checkpoint as the log signed it: the note text, its size and root, and the log's signature line. */
export interface SignedCheckpoint {
  readonly text: string;
  readonly size: number;
  readonly root: string;
  readonly line: string;
}

export interface WitnessPost {
  (url: string, body: string, signal: AbortSignal): Promise<{ status: number; contentType: string | null; body: string }>;
}

export interface SubmitterDeps {
  /** The witnesses with a URL. */
  readonly witnesses: readonly (Witness & { readonly url: string })[];
  readonly intervalMs: number;
  readonly tenants: () => Promise<readonly string[]>;
  readonly logSize: (tenant: string) => Promise<number>;
  readonly checkpoint: (tenant: string, size: number) => Promise<SignedCheckpoint>;
  /** The consistency proof from `from` to `to` (base64 hashes). */
  readonly consistency: (tenant: string, from: number, to: number) => Promise<readonly string[]>;
  readonly keep: (tenant: string, checkpoint: SignedCheckpoint, witness: NoteKey, lines: readonly string[]) => Promise<E.Either<Refusal, unknown>>;
  readonly metrics: WitnessMetrics;
  readonly now: () => number;
  readonly logger?: Logger;
  readonly post?: WitnessPost;
}

/** An answer bigger than this is no list of cosignatures: read no further. */
const MAX_ANSWER_BYTES = 64 * 1024;
const REQUEST_TIMEOUT_MS = 10_000;

/** POST over fetch, the answer read up to MAX_ANSWER_BYTES. */
const fetchPost: WitnessPost = async (url, body, signal) => {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'text/plain; charset=utf-8' }, signal, redirect: 'error' });
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of res.body ?? []) {
    length += (chunk as Uint8Array).length;
    if (length > MAX_ANSWER_BYTES) throw new Error(`the witness answered more than ${MAX_ANSWER_BYTES} bytes`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return { status: res.status, contentType: res.headers.get('content-type'), body: Buffer.concat(chunks).toString('utf8') };
};

/** What the submitter knows of one witness for one tenant. */
interface Track {
  /** The size the witness holds, as it last told us (null: not asked yet; the first request says old 0 and a 409 tells). */
  known: number | null;
  /** The biggest size it cosigned for us. */
  cosigned: number;
  failures: number;
  notBefore: number;
}

/**
 * Pushes each tenant's newest signed checkpoint to every witness with a URL, as
 * c2sp.org/tlog-witness `add-checkpoint` has the log do: the size the witness last cosigned,
 * the consistency proof from it, the note. A 409 names the witness's size: the checkpoint is
 * sent again from it. Every answer is counted; a failing witness is tried again after a
 * doubling wait. It runs beside the service on a timer and reads only the read models: no write
 * waits on it, and a witness that is down slows nothing but its own submissions.
 *
 * Each round takes one checkpoint per tenant and sends it to every witness due, so the
 * witnesses cosign the same trees and a quorum can gather on one. A tenant starts a round at
 * most once per interval, and not while its last round is still out.
 */
export const startWitnessSubmitter = (deps: SubmitterDeps) => {
  const post = deps.post ?? fetchPost;
  const tracks = new Map<string, Track>();
  const running = new Map<string, Promise<void>>();
  const stopping = new AbortController();

  const trackOf = (tenant: string, w: Witness): Track => {
    const id = `${tenant}\n${w.key.name}+${w.key.id}`;
    let t = tracks.get(id);
    if (!t) tracks.set(id, (t = { known: null, cosigned: 0, failures: 0, notBefore: 0 }));
    return t;
  };

  const count = (w: Witness, outcome: SubmissionOutcome) => deps.metrics.submitted(w.key.name, outcome);

  const failed = (w: Witness, t: Track, outcome: SubmissionOutcome, detail: Record<string, unknown>) => {
    count(w, outcome);
    t.failures += 1;
    t.notBefore = deps.now() + retryDelayMs(t.failures, deps.intervalMs);
    deps.logger?.warn({ witness: w.key.name, outcome, ...detail }, 'witness submission failed');
  };

  /** Sends `cp` to one witness: at most a few requests (a 409 answers the size to resend from). */
  const submitTo = async (tenant: string, w: Witness & { url: string }, cp: SignedCheckpoint, note: string) => {
    const t = trackOf(tenant, w);
    if (t.cosigned >= cp.size || deps.now() < t.notBefore) return;
    let old = t.known ?? 0;
    // Two resends: one for the size the witness answers, one more if it moved meanwhile (another instance submitted).
    for (let attempt = 0; attempt < 3; attempt++) {
      const plan = resendFrom(old, cp.size);
      if (plan.kind === 'ahead') return failed(w, t, 'witness_ahead', { tenant, witness_size: old, log_size: cp.size });
      const proof = plan.oldSize === 0 ? [] : await deps.consistency(tenant, plan.oldSize, cp.size);
      let answer;
      try {
        const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
        answer = await post(`${w.url}/add-checkpoint`, addCheckpointBody(plan.oldSize, proof, note), signal);
      } catch (error) {
        if (stopping.signal.aborted) return;
        return failed(w, t, 'network_error', { tenant, err: error });
      }
      const read = readWitnessAnswer(answer.status, answer.contentType, answer.body);
      if (read.kind === 'conflict') {
        count(w, 'conflict');
        t.known = old = read.size;
        continue;
      }
      if (read.kind === 'refused') return failed(w, t, refusedOutcome(read.status), { tenant, status: read.status, size: cp.size, old: plan.oldSize });
      // The witness holds this checkpoint now, whatever we make of its answer.
      t.known = cp.size;
      const kept = await deps.keep(tenant, cp, w.key, read.lines);
      if (E.isLeft(kept)) return failed(w, t, 'bad_cosignature', { tenant, reason: kept.left });
      count(w, 'cosigned');
      deps.metrics.cosigned(w.key.name, cp.size, deps.now());
      t.cosigned = cp.size;
      t.failures = 0;
      t.notBefore = 0;
      return;
    }
    failed(w, t, 'conflict', { tenant, note: 'the witness kept moving: three 409s in a row' });
  };

  const round = async (tenant: string) => {
    const size = await deps.logSize(tenant);
    // An empty log has nothing to witness.
    if (size === 0) return;
    const due = deps.witnesses.filter((w) => {
      const t = trackOf(tenant, w);
      return t.cosigned < size && deps.now() >= t.notBefore;
    });
    if (due.length === 0) return;
    const cp = await deps.checkpoint(tenant, size);
    const note = formatNote(cp.text, [cp.line]);
    await Promise.all(
      due.map((w) =>
        submitTo(tenant, w, cp, note).catch((error: unknown) => {
          if (!stopping.signal.aborted) failed(w, trackOf(tenant, w), 'error', { tenant, err: error });
        }),
      ),
    );
  };

  const tick = async () => {
    for (const tenant of await deps.tenants()) {
      if (stopping.signal.aborted) return;
      if (running.has(tenant)) continue;
      const r = round(tenant)
        .catch((error: unknown) => {
          if (!stopping.signal.aborted) deps.logger?.warn({ err: error, tenant }, 'witness round failed');
        })
        .finally(() => running.delete(tenant));
      running.set(tenant, r);
    }
  };

  let ticking: Promise<void> | null = null;
  const timer = setInterval(() => {
    ticking ??= tick()
      .catch((error: unknown) => {
        if (!stopping.signal.aborted) deps.logger?.warn({ err: error }, 'witness round failed');
      })
      .finally(() => {
        ticking = null;
      });
  }, deps.intervalMs);

  return {
    /** One round for one tenant now, as the timer would start it (tests drive it step by step). */
    submitNow: (tenant: string) => round(tenant),
    /** Stops the timer, aborts the requests out and waits for the rounds under way. */
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await ticking;
      await Promise.all(running.values());
    },
  };
};
