import { sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkpointSigner, InvalidAuditConfig, logNameOf, newAuditKey, RECEIPT_PREFIX, signReceipt, verifyReceipt } from '../../../adapters/keys/audit-key.ts';
import { witnessesOf } from '../../../adapters/keys/witness-keys.ts';
import { checkpointText } from '../../../domain/audit/entries.ts';
import { formatNote, keyIdOf, parseCheckpointText, parseNote, parseVkey, signedBy, vkeyOf } from '../../../domain/audit/note.ts';
import { canonicalJson } from '../../../domain/shared/hash.ts';
import { startWitness } from '../../support/witness.ts';

// The example of c2sp.org/signed-note ("Verifier keys", Example).
const SPEC_VKEY = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
const SPEC_NOTE =
  'This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';

describe('C2SP signed notes', () => {
  it("verifies the specification's example note with its example vkey, and refuses it changed", () => {
    const key = parseVkey(SPEC_VKEY)!;
    expect(key).toMatchObject({ name: 'example.com/foo', type: 1, id: 0x530d903a });
    expect(keyIdOf(key.name, key.type, key.key)).toBe(0x530d903a);
    expect(vkeyOf(key)).toBe(SPEC_VKEY);
    const note = parseNote(SPEC_NOTE)!;
    expect(note.text).toBe('This is an example message.\n');
    expect(signedBy(note, key)).toBe(true);
    expect(signedBy(parseNote(SPEC_NOTE.replace('example message', 'exemple message'))!, key)).toBe(false);
    expect(signedBy(note, parseVkey(SPEC_VKEY.replace('example.com/foo+530d903a', 'example.com/bar+530d903a')) ?? key)).toBe(true);
  });

  it('refuses what is not a note, a vkey or a checkpoint text', () => {
    for (const bad of ['no blank line\n— a AAAA\n', 'text\n\n', 'text\n\n— a b c\n', 'te\u0007xt\n\n— a AAAAAAAA\n', 'text\n\n— a AAAAAAAA'])
      expect(parseNote(bad)).toBeNull();
    for (const bad of [
      'example.com/foo+530d903b+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k',
      'a b+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k',
      'x+00000000+AQ==',
    ])
      expect(parseVkey(bad)).toBeNull();
    const root = Buffer.alloc(32).toString('base64');
    expect(parseCheckpointText(`o\n3\n${root}\n`)).toEqual({ origin: 'o', size: 3, root });
    for (const bad of [`o\n03\n${root}\n`, `o\n3\n${root}`, `o\n-1\n${root}\n`, `o\n3\nabc=\n`, `\n3\n${root}\n`]) expect(parseCheckpointText(bad)).toBeNull();
  });

  it("signs checkpoints as notes under the log's name, with the JSON signature's bytes", () => {
    const key = newAuditKey();
    const signer = checkpointSigner(key, 'audit.example.com/custodian');
    const text = checkpointText('audit.example.com/custodian/acme', 5, Buffer.alloc(32, 1).toString('base64'));
    const note = parseNote(formatNote(text, [signer.signatureLine(text)]))!;
    expect(signedBy(note, parseVkey(vkeyOf(signer.key))!)).toBe(true);
    expect(note.signatures[0]!.signature.equals(signer.signature(text))).toBe(true);
  });

  it("a witness's cosignature verifies with its vkey over the cosigned message only", () => {
    const log = checkpointSigner(newAuditKey(), 'log.example');
    const w = startWitness('witness.example/w', { 'log.example/t': log.key });
    const text = checkpointText('log.example/t', 0, '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
    const answer = w.addCheckpoint(`old 0\n\n${formatNote(text, [log.signatureLine(text)])}`);
    expect(answer.status).toBe(200);
    const cosigned = parseNote(formatNote(text, [log.signatureLine(text), answer.body.trimEnd()]))!;
    const key = witnessesOf(w.vkey)[0]!.key;
    expect(signedBy(cosigned, key)).toBe(true);
    // The same signature over another text (or as a plain note signature) does not verify.
    expect(signedBy(parseNote(formatNote(text.replace('/t', '/u'), [answer.body.trimEnd()]))!, key)).toBe(false);
    expect(() => witnessesOf(vkeyOf(log.key))).toThrow(InvalidAuditConfig);
  });
});

describe('receipt and checkpoint signatures are kept apart', () => {
  it('a receipt is signed over the receipt prefix and canonical JSON, never over the bare JSON', () => {
    const key = newAuditKey();
    const receipt = signReceipt(key, { kind: 'erasure', tenant: 't', erased: 1 });
    const { signature, ...body } = receipt;
    expect(verify(null, Buffer.from(RECEIPT_PREFIX + canonicalJson(body)), key, Buffer.from(signature, 'base64'))).toBe(true);
    expect(verify(null, Buffer.from(canonicalJson(body)), key, Buffer.from(signature, 'base64'))).toBe(false);
    expect(verifyReceipt(key, receipt)).toEqual({ ok: true });
    // The proof of logging is outside what the signature covers.
    expect(verifyReceipt(key, { ...receipt, log: { index: 1 } })).toEqual({ ok: true });
  });

  it("a checkpoint's signature does not pass as a receipt's, nor a receipt's as a checkpoint's", () => {
    const key = newAuditKey();
    const signer = checkpointSigner(key, 'log.example');
    const text = checkpointText('log.example/t', 1, Buffer.alloc(32, 2).toString('base64'));
    const cpSig = signer.signature(text).toString('base64');
    expect(verifyReceipt(key, { kind: 'erasure', signature: cpSig })).toMatchObject({ ok: false });
    const receipt = signReceipt(key, { kind: 'erasure', tenant: 't' });
    const note = parseNote(
      formatNote(text, [`— log.example ${Buffer.concat([Buffer.alloc(4), Buffer.from(receipt.signature, 'base64')]).toString('base64')}`]),
    )!;
    expect(signedBy(note, signer.key)).toBe(null);
    expect(verify(null, Buffer.from(text), key, Buffer.from(receipt.signature, 'base64'))).toBe(false);
  });

  it('a receipt signed before the prefix still verifies, marked as such', () => {
    const key = newAuditKey();
    const body = { kind: 'revocation_batch', tenant: 't', epoch: 2 };
    const old = { ...body, signature: sign(null, Buffer.from(canonicalJson(body)), key).toString('base64') };
    expect(verifyReceipt(key, old)).toEqual({ ok: true, legacy: true });
  });
});

describe('log names', () => {
  it('is CUSTODIAN_LOG_ORIGIN when set, else derived from the audit key: distinct per key, shared by instances of one key', () => {
    const [k1, k2] = [newAuditKey(), newAuditKey()];
    expect(logNameOf('audit.example.com/custodian/', k1)).toBe('audit.example.com/custodian');
    expect(logNameOf(undefined, k1)).toMatch(/^custodian\.invalid\/[0-9a-f]{16}$/);
    expect(logNameOf(undefined, k1)).toBe(logNameOf('', k1));
    expect(logNameOf(undefined, k1)).not.toBe(logNameOf(undefined, k2));
    for (const bad of ['https://audit.example.com', 'a b', 'a+b', '{x', '/x']) expect(() => logNameOf(bad, k1)).toThrow(InvalidAuditConfig);
  });
});
