import { createHash } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { BlobStore, OpenedBlob } from '../domain/ports/blob-store.ts';
import { treeFilesDecider } from '../domain/files/decide.ts';
import { fileRef, MAX_FILE_BYTES, shaOfRef, treeOf } from '../domain/files/ref.ts';
import { refusal, type Refusal } from '../domain/shared/refusal.ts';
import type { CallContext } from '../queries/call-context.ts';
import { handleCommand, loadState } from './handle.ts';
import { joinFileLabels } from './file-labels.ts';

export const filesStream = (tenant: string, tree: string) => `files:${tenant}:${tree}`;

/** One answer for every file a caller may not read: the same as for a file never stored. */
const notFound = (): Refusal => refusal('not_found', {});

/** Files between tools (SPEC §13): stored and read by the job tree the ticket names, never by the request. */
export const fileCommands = (deps: { store: EventStore; blobs: BlobStore; clock: Clock }) => ({
  async put(ctx: CallContext, bytes: Uint8Array, correlationId?: string): Promise<E.Either<Refusal, { ref: string; size: number; position: number | null }>> {
    if (bytes.length > MAX_FILE_BYTES) return E.left(refusal('too_large', { limit: MAX_FILE_BYTES }));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const tree = treeOf(ctx.chain, ctx.job);
    const now = deps.clock.now();
    // The bytes go in first: a FileStored event always names a file that can be read.
    await deps.blobs.put({ tenant: ctx.tenant, tree, sha256 }, bytes, ctx.data_subject, now);
    const stored = await handleCommand(
      deps.store,
      filesStream(ctx.tenant, tree),
      treeFilesDecider,
      {
        type: 'StoreFile',
        tenant: ctx.tenant,
        tree,
        job: ctx.job,
        run: ctx.run,
        call: ctx.call,
        sha256,
        size: bytes.length,
        data_subject: ctx.data_subject,
        labels: ctx.labels,
        now,
      },
      { tenant: ctx.tenant, correlationId: correlationId ?? null, causationId: ctx.call },
    );
    return E.map((h: { position: number | null }) => ({ ref: fileRef(sha256), size: bytes.length, position: h.position }))(stored);
  },

  holds: (tenant: string, tree: string): Promise<boolean> => deps.blobs.holds(tenant, tree),

  /**
   * The file for the ticket's tree, once its labels are joined into the reading job (`joined`:
   * the position to wait for before answering, or null); across a label wall it is withheld.
   */
  async open(ctx: CallContext, ref: string): Promise<E.Either<Refusal, OpenedBlob & { joined: number | null }>> {
    const sha256 = shaOfRef(ref);
    if (sha256 === null) return E.left(notFound());
    const tree = treeOf(ctx.chain, ctx.job);
    const opened = await deps.blobs.open({ tenant: ctx.tenant, tree, sha256 });
    if (!opened) return E.left(notFound());
    const { state } = await loadState(deps.store, filesStream(ctx.tenant, tree), treeFilesDecider);
    const joined = await joinFileLabels(deps.store, ctx, state.stored[sha256]?.labels ?? [], deps.clock.now());
    return E.map((position: number | null) => ({ size: opened.size, chunks: () => opened.chunks(), joined: position }))(joined);
  },
});

export type FileCommands = ReturnType<typeof fileCommands>;
