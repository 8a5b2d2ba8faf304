import * as E from 'fp-ts/lib/Either.js';
import { cosignaturesDecider, cosignaturesStream } from '../domain/audit/cosignatures.ts';
import { formatNote, parseCheckpointText, parseNote, signatureVerifies, type NoteKey } from '../domain/audit/note.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import { invalid, type Refusal } from '../domain/shared/refusal.ts';
import { auditSize, type AuditQueries } from '../queries/audit.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import { handleCommand, loadState } from './handle.ts';

/**
 * Witness cosignatures on a tenant log's checkpoints (c2sp.org/tlog-cosignature): a posted
 * note is kept only when its text is a checkpoint this log signs (its origin, a size it
 * reached, the root it has at that size) and every signature line on it is the log's own or a
 * configured witness's that verifies. The checkpoint of that size is served with them after.
 */
export const witnessCommands = (deps: { store: EventStore; db: Sql; audit: AuditQueries; witnesses: readonly NoteKey[]; now: () => number }) => {
  const { store, audit } = deps;

  const cosignatures = async (tenant: string, size: number, root: string): Promise<string[]> => {
    const { state } = await loadState(store, cosignaturesStream(tenant, size), cosignaturesDecider);
    // A root differs only if the tree was rewritten: its old cosignatures say nothing of this one.
    return root === (await audit.rootAt(tenant, size)) ? [...state.values()] : [];
  };

  return {
    /** The checkpoint at `size` (default: the log's) as a signed note, with every cosignature kept for it. */
    async note(tenant: string, size?: number) {
      const cp = await audit.checkpoint(tenant, size);
      const lines = [cp.line, ...(await cosignatures(tenant, cp.size, cp.root))];
      return { ...cp, cosignatures: lines.slice(1), note: formatNote(cp.text, lines) };
    },

    async cosign(tenant: string, text: string): Promise<E.Either<Refusal, { size: number; root: string; cosignatures: number }>> {
      const note = parseNote(text);
      if (!note) return E.left(invalid('note', 'send a C2SP signed note: the checkpoint text, a blank line, then one signature line per signer'));
      const cp = parseCheckpointText(note.text);
      const mine = await audit.checkpoint(tenant, cp && cp.size <= (await auditSize(deps.db, tenant)) ? cp.size : 0);
      if (!cp || cp.origin !== mine.origin)
        return E.left(invalid('note', `the note is not a checkpoint of this log: its first line must be the origin ${mine.origin}`));
      if (mine.size !== cp.size || mine.root !== cp.root)
        return E.left(invalid('note', `this log never signed a tree of size ${cp.size} with root ${cp.root}: cosign a checkpoint it served`));
      const kept: { witness: string; key_id: number; line: string }[] = [];
      for (const sig of note.signatures) {
        // The log's own signature (Ed25519 is deterministic: the same text gives the same line).
        if (sig.line === mine.line) continue;
        const witness = deps.witnesses.find((w) => w.name === sig.name && w.id === sig.id);
        if (!witness)
          return E.left(
            invalid('note', `the signature of ${sig.name} is not of a configured witness: configure its key in CUSTODIAN_WITNESSES or remove the line`),
          );
        if (!signatureVerifies(witness, note.text, sig))
          return E.left(invalid('note', `the cosignature of ${sig.name} does not verify with its configured key`));
        kept.push({ witness: witness.name, key_id: witness.id, line: sig.line });
      }
      if (kept.length === 0) return E.left(invalid('note', 'the note carries no witness cosignature'));
      const done = await handleCommand(
        store,
        cosignaturesStream(tenant, cp.size),
        cosignaturesDecider,
        { tenant, size: cp.size, root: cp.root, cosignatures: kept, now: deps.now() },
        { tenant },
      );
      if (E.isLeft(done)) return done;
      return E.right({ size: cp.size, root: cp.root, cosignatures: done.right.state.size });
    },
  };
};

export type WitnessCommands = ReturnType<typeof witnessCommands>;
