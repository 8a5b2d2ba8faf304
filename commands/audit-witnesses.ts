import * as E from 'fp-ts/lib/Either.js';
import { cosignaturesDecider, cosignaturesStream } from '../domain/audit/cosignatures.ts';
import { formatNote, parseCheckpointText, parseNote, signatureVerifies, type NoteKey } from '../domain/audit/note.ts';
import type { Witness } from '../domain/audit/witness-protocol.ts';
import { witnessedDecider, witnessedStream, type WitnessedState } from '../domain/audit/witnessed.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import { invalid, type Refusal } from '../domain/shared/refusal.ts';
import { auditSize, type AuditQueries } from '../queries/audit.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import { handle, handleCommand, inspect, loadState, stateCache } from './handle.ts';

type Kept = { witness: string; key_id: number; line: string };

const ref = (witness: string, keyId: number) => `${witness}+${keyId}`;

/**
 * Witness cosignatures on a tenant log's checkpoints (c2sp.org/tlog-cosignature): a
 * cosignature is kept only when the text it signs is a checkpoint this log signs (its origin,
 * a size it reached, the root it has at that size) and it verifies under a configured witness's
 * key. Cosignatures come two ways: answered by a witness the service submitted to
 * (`keepAnswered`), or posted by the admin as a cosigned note (`cosign`). A checkpoint that
 * `quorum` configured witnesses cosigned is marked witnessed; `newestWitnessed` serves the
 * newest such checkpoint.
 */
export const witnessCommands = (deps: {
  store: EventStore;
  db: Sql;
  audit: AuditQueries;
  witnesses: readonly Witness[];
  /** How many configured witnesses must cosign a checkpoint (0: every signed checkpoint counts as witnessed). */
  quorum: number;
  now: () => number;
}) => {
  const { store, audit } = deps;
  const configured = deps.witnesses.map((w) => w.key);
  // The tenants' witnessed checkpoints, caught up from where they were read last.
  const witnessedCache = stateCache<WitnessedState>(10_000);

  /** The cosignature lines kept for a checkpoint, by witness (an empty map for a tree that was rewritten since). */
  const keptFor = async (tenant: string, size: number, root: string) => {
    const { state } = await loadState(store, cosignaturesStream(tenant, size), cosignaturesDecider);
    // A root differs only if the tree was rewritten: its old cosignatures say nothing of this one.
    return root === (await audit.rootAt(tenant, size)) ? state : new Map<string, string>();
  };

  /** The configured witnesses among those that cosigned. */
  const configuredOf = (state: ReadonlyMap<string, string>) => configured.filter((k) => state.has(ref(k.name, k.id)));

  const keep = async (tenant: string, size: number, root: string, kept: readonly Kept[]) => {
    const done = await handleCommand(
      store,
      cosignaturesStream(tenant, size),
      cosignaturesDecider,
      { tenant, size, root, cosignatures: kept, now: deps.now() },
      { tenant },
    );
    if (E.isLeft(done)) return done;
    const cosigners = configuredOf(done.right.state);
    if (deps.quorum > 0 && cosigners.length >= deps.quorum) {
      const marked = await handle(
        store,
        witnessedStream(tenant),
        witnessedDecider,
        {
          tenant,
          size,
          root,
          witnesses: cosigners.map((k) => ({ witness: k.name, key_id: k.id })),
          quorum: deps.quorum,
          now: deps.now(),
        },
        { tenant, causation: null, correlation: null },
        { cache: witnessedCache },
      );
      if (E.isLeft(marked)) return marked;
    }
    return E.right({ size, root, cosignatures: done.right.state.size });
  };

  const note = async (tenant: string, size?: number) => {
    const cp = await audit.checkpoint(tenant, size);
    const lines = [cp.line, ...(await keptFor(tenant, cp.size, cp.root)).values()];
    return { ...cp, cosignatures: lines.slice(1), note: formatNote(cp.text, lines) };
  };

  return {
    /** The checkpoint at `size` (default: the log's) as a signed note, with every cosignature kept for it. */
    note,

    /**
     * The newest checkpoint that `quorum` of the configured witnesses cosigned, as `note`
     * answers it (with their cosignatures); null when none has yet. With a quorum of 0 (no
     * witness to wait for), the newest signed checkpoint. A checkpoint of a tree rewritten
     * since, or one that no longer has the quorum of the witnesses configured now, is passed over.
     */
    async newestWitnessed(tenant: string) {
      if (deps.quorum === 0) return note(tenant);
      const marked = (await inspect(store, witnessedStream(tenant), witnessedDecider, (s) => s, { cache: witnessedCache })) as WitnessedState;
      const size = await auditSize(deps.db, tenant);
      for (let i = marked.length - 1; i >= 0; i--) {
        const m = marked[i]!;
        if (m.size > size) continue;
        if (configuredOf(await keptFor(tenant, m.size, m.root)).length >= deps.quorum) return note(tenant, m.size);
      }
      return null;
    },

    /**
     * A witness's answer to the submission of `checkpoint` (its note text, size and root): the
     * answered signature lines are read as the note specification reads them; lines of other
     * keys are ignored; at least one must be this witness's and verify, and is kept.
     */
    async keepAnswered(
      tenant: string,
      checkpoint: { text: string; size: number; root: string },
      witness: NoteKey,
      lines: readonly string[],
    ): Promise<E.Either<Refusal, { size: number; root: string; cosignatures: number }>> {
      const answered = parseNote(formatNote(checkpoint.text, lines));
      const mine = (answered?.signatures ?? []).filter((s) => s.name === witness.name && s.id === witness.id);
      const valid = mine.find((s) => signatureVerifies(witness, checkpoint.text, s));
      if (!answered || !valid)
        return E.left(invalid('cosignature', `the witness ${witness.name} answered no cosignature of this checkpoint that verifies under its configured key`));
      return keep(tenant, checkpoint.size, checkpoint.root, [{ witness: witness.name, key_id: witness.id, line: valid.line }]);
    },

    async cosign(tenant: string, text: string): Promise<E.Either<Refusal, { size: number; root: string; cosignatures: number }>> {
      const parsed = parseNote(text);
      if (!parsed) return E.left(invalid('note', 'send a C2SP signed note: the checkpoint text, a blank line, then one signature line per signer'));
      const cp = parseCheckpointText(parsed.text);
      const mine = await audit.checkpoint(tenant, cp && cp.size <= (await auditSize(deps.db, tenant)) ? cp.size : 0);
      if (!cp || cp.origin !== mine.origin)
        return E.left(invalid('note', `the note is not a checkpoint of this log: its first line must be the origin ${mine.origin}`));
      if (mine.size !== cp.size || mine.root !== cp.root)
        return E.left(invalid('note', `this log never signed a tree of size ${cp.size} with root ${cp.root}: cosign a checkpoint it served`));
      const kept: Kept[] = [];
      for (const sig of parsed.signatures) {
        // The log's own signature (Ed25519 is deterministic: the same text gives the same line).
        if (sig.line === mine.line) continue;
        const witness = configured.find((w) => w.name === sig.name && w.id === sig.id);
        if (!witness)
          return E.left(
            invalid('note', `the signature of ${sig.name} is not of a configured witness: configure its key in CUSTODIAN_WITNESSES or remove the line`),
          );
        if (!signatureVerifies(witness, parsed.text, sig))
          return E.left(invalid('note', `the cosignature of ${sig.name} does not verify with its configured key`));
        kept.push({ witness: witness.name, key_id: witness.id, line: sig.line });
      }
      if (kept.length === 0) return E.left(invalid('note', 'the note carries no witness cosignature'));
      return keep(tenant, cp.size, cp.root, kept);
    },
  };
};

export type WitnessCommands = ReturnType<typeof witnessCommands>;
