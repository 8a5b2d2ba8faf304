import { createHash } from 'node:crypto';
import { fileRef } from '../domain/files/ref.ts';
import * as E from 'fp-ts/lib/Either.js';
import { defaultBudget } from '../clients/typescript/src/fit/budget.ts';
import type { FitNote, View } from '../clients/typescript/src/fit/types.ts';
import {
  DEFAULT_OFFLOAD_TOKENS,
  fitResult,
  MAX_RESULT_BYTES,
  offloadStub,
  readInline,
  resultForm,
  storedForm,
  type OffloadStub,
  type ResultKind,
} from '../domain/files/results.ts';
import { refusal, type Refusal } from '../domain/shared/refusal.ts';
import type { CallContext } from '../queries/call-context.ts';
import type { FileCommands } from './files.ts';
import type { JobLoader } from './file-labels.ts';
import { loadState } from './handle.ts';
import { jobDecider } from '../domain/jobs/decide.ts';
import { jobStream } from '../domain/shared/names.ts';
import type { EventStore } from '../domain/ports/event-store.ts';

export interface ReadRequest {
  readonly ref: string;
  readonly view?: View | undefined;
  readonly section?: string | undefined;
  readonly range?: string | undefined;
  readonly query?: string | undefined;
  readonly budget?: number | undefined;
}

/** The threshold the call's job started with; a job started before thresholds existed has the default. */
const thresholdOf = async (jobs: JobLoader, ctx: CallContext): Promise<number | 'off'> => {
  const { state } = await jobs(ctx.tenant, ctx.job);
  return state.exists && state.start.run === ctx.run ? (state.start.offload ?? DEFAULT_OFFLOAD_TOKENS) : DEFAULT_OFFLOAD_TOKENS;
};

/** Offloading results (SPEC §13): a result over the job's threshold is kept as a file of its tree. */
export const resultCommands = (
  files: FileCommands,
  store: EventStore,
  /** The job's state from the job commands' cache or snapshot; none: the job's stream is folded whole. */
  jobs: JobLoader = (tenant, job) => loadState(store, jobStream(tenant, job), jobDecider),
) => ({
  async offload(
    ctx: CallContext,
    tool: string,
    content: unknown,
    correlationId?: string,
  ): Promise<E.Either<Refusal, { inline: true; position: null } | (OffloadStub & { position: number | null })>> {
    if (Buffer.byteLength(JSON.stringify(content) ?? 'null') > MAX_RESULT_BYTES) return E.left(refusal('result_too_large', { limit: MAX_RESULT_BYTES }));
    const form = resultForm(content);
    const threshold = await thresholdOf(jobs, ctx);
    if (threshold === 'off' || readInline(form, threshold)) return E.right({ inline: true, position: null });
    const bytes = Buffer.from(form.text, 'utf8');
    // The stub first: whatever making it costs or refuses, nothing is stored for an answer never given.
    const stub = offloadStub(form, tool, fileRef(createHash('sha256').update(bytes).digest('hex')), bytes.length, threshold);
    const stored = await files.put(ctx, bytes, correlationId);
    if (E.isLeft(stored)) return stored;
    return E.right({ ...stub, position: stored.right.position });
  },

  async read(ctx: CallContext, r: ReadRequest): Promise<E.Either<Refusal, { content: string; kind: ResultKind; fit: FitNote | null; joined: number | null }>> {
    const opened = await files.open(ctx, r.ref);
    if (E.isLeft(opened)) return opened;
    const chunks: Buffer[] = [];
    for await (const chunk of opened.right.chunks()) chunks.push(Buffer.from(chunk));
    const form = storedForm(Buffer.concat(chunks).toString('utf8'));
    // A budget left out is filled in as for a fitted tool: the default budget of a fresh context.
    const budget = r.budget ?? defaultBudget({ used: 0, warned: false });
    const query = r.section ?? r.range ?? r.query;
    const fitted = fitResult(form, { budget, ...(r.view ? { view: r.view } : {}), ...(query !== undefined ? { query } : {}) });
    return E.right({ content: fitted.text, kind: form.kind, fit: fitted.fit, joined: opened.right.joined });
  },
});

export type ResultCommands = ReturnType<typeof resultCommands>;
