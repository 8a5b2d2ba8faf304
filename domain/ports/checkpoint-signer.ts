import type { NoteKey } from '../audit/note.ts';

/**
 * Signs a tenant log's checkpoints as C2SP signed notes. `logName` is the deployment's log
 * name: every tenant's origin is `<logName>/<tenant>`, and the key signs under that name.
 */
export interface CheckpointSigner {
  readonly logName: string;
  readonly key: NoteKey;
  /** The note signature line (`— <name> <base64(key id ‖ signature)>`) over the note text. */
  signatureLine(text: string): string;
  /** The raw Ed25519 signature over the note text (the JSON checkpoint's `signature`). */
  signature(text: string): Buffer;
}
