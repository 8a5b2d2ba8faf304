import { COSIGNATURE_V1, parseVkey, type NoteKey } from '../../domain/audit/note.ts';
import { InvalidAuditConfig } from './audit-key.ts';

/**
 * CUSTODIAN_WITNESSES: the witnesses whose cosignatures the checkpoints take, as C2SP
 * cosignature verifier keys (`<name>+<hex id>+<base64(0x04 ‖ Ed25519 key)>`), separated by
 * commas or white space. A key that is not one is a configuration error.
 */
export const witnessKeysOf = (text: string | undefined): NoteKey[] =>
  (text ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((vkey) => {
      const key = parseVkey(vkey);
      if (!key || key.type !== COSIGNATURE_V1)
        throw new InvalidAuditConfig(
          `CUSTODIAN_WITNESSES holds ${JSON.stringify(vkey)}, which is not a witness cosignature verifier key (<name>+<hex id>+<base64 of 0x04 and the Ed25519 key>)`,
        );
      return key;
    });
