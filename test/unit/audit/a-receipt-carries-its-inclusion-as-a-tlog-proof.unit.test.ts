import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkpointSigner, newAuditKey } from '../../../adapters/keys/audit-key.ts';
import { checkpointText } from '../../../domain/audit/entries.ts';
import { inclusionProof, leafHash, rootOf, type NodeSource } from '../../../domain/audit/merkle.ts';
import { formatNote } from '../../../domain/audit/note.ts';
import { verifyReceiptLog } from '../../../domain/audit/receipt-proof.ts';
import { formatTlogProof, parseTlogProof, TLOG_PROOF_V1 } from '../../../domain/audit/tlog-proof.ts';
import { canonicalJson } from '../../../domain/shared/hash.ts';

const key = newAuditKey();
const pem = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
const signer = checkpointSigner(key, 'log.test/custodian');
const ORIGIN = 'log.test/custodian/acme';

/** A log of 7 entries whose entry 5 carries an erasure receipt, and that receipt with its `log` as a service answers it. */
const logged = () => {
  const receipt = { kind: 'erasure', tenant: 'acme', subject: 'user:zed', complete: true, signature: 'c2lnbmF0dXJl' };
  const lines = Array.from({ length: 7 }, (_, seq) =>
    seq === 5
      ? canonicalJson({ seq, at: 1700000000000 + seq, kind: 'erasure', subject: 'user:zed', receipt })
      : canonicalJson({ seq, at: 1, kind: 'hold_placed' }),
  );
  const leaves = lines.map((l) => leafHash(Buffer.from(l)));
  const text = checkpointText(ORIGIN, leaves.length, rootOf(leaves).toString('base64'));
  const note = formatNote(text, [signer.signatureLine(text)]);
  const src: NodeSource = { node: async (level, index) => rootOf(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level)) };
  return { receipt, lines, note, src, leaves };
};

const withLog = async () => {
  const { receipt, lines, note, src, leaves } = logged();
  const proof = (await inclusionProof(src, 5, 0, leaves.length)).map((h) => h.toString('base64'));
  const tlogProof = formatTlogProof({ index: 5, proof, checkpoint: note });
  return { ...receipt, log: { index: 5, entry: lines[5]!, checkpoint: note, proof, tlog_proof: tlogProof } };
};

describe('a receipt carries its inclusion as a c2sp.org/tlog-proof text', () => {
  it('is the header, the index, the inclusion hashes, an empty line and the checkpoint note verbatim', async () => {
    const r = await withLog();
    expect(r.log.tlog_proof).toBe(`${TLOG_PROOF_V1}\nindex 5\n${r.log.proof.join('\n')}\n\n${r.log.checkpoint}`);
    expect(parseTlogProof(r.log.tlog_proof)).toEqual({ index: 5, proof: r.log.proof, checkpoint: r.log.checkpoint });
    expect(verifyReceiptLog(pem, r)).toEqual({ ok: true, origin: ORIGIN, index: 5, size: 7 });
  });

  it('reads the optional extra line and never needs it', async () => {
    const r = await withLog();
    const text = formatTlogProof({ index: 5, proof: r.log.proof, checkpoint: r.log.checkpoint, extra: Buffer.from('ignored') });
    expect(text.split('\n')[1]).toBe(`extra ${Buffer.from('ignored').toString('base64')}`);
    expect(verifyReceiptLog(pem, { ...r, log: { ...r.log, tlog_proof: text } })).toMatchObject({ ok: true });
  });

  it('a receipt without tlog_proof (issued before receipts carried it) still verifies', async () => {
    const { tlog_proof: _t, ...log } = (await withLog()).log;
    expect(verifyReceiptLog(pem, { ...(await withLog()), log })).toMatchObject({ ok: true, index: 5 });
  });

  it('refuses a tampered proof text: a changed hash, another index, a checkpoint not signed by the key, no header', async () => {
    const r = await withLog();
    const refused = (text: string) => verifyReceiptLog(pem, { ...r, log: { ...r.log, tlog_proof: text } });
    const hash = r.log.proof[1]!;
    const flipped = `${hash[0] === 'A' ? 'B' : 'A'}${hash.slice(1)}`;
    expect(refused(r.log.tlog_proof.replace(hash, flipped))).toEqual({
      ok: false,
      problems: ['its tlog_proof: its entry is not at index 5 of the tree the checkpoint signs (size 7)'],
    });
    expect(refused(r.log.tlog_proof.replace('index 5', 'index 4'))).toEqual({
      ok: false,
      problems: ["its tlog_proof is of index 4, not of the entry's index 5"],
    });
    const resigned = r.log.tlog_proof.replace(/ [A-Za-z0-9+/]+=*\n$/, ` ${Buffer.alloc(68, 1).toString('base64')}\n`);
    expect(refused(resigned)).toEqual({ ok: false, problems: ['its tlog_proof: its checkpoint is not signed by this key'] });
    expect(refused(r.log.tlog_proof.replace(`${TLOG_PROOF_V1}\n`, ''))).toEqual({
      ok: false,
      problems: [`its tlog_proof is not a ${TLOG_PROOF_V1} proof: it does not start with the line ${TLOG_PROOF_V1}`],
    });
    expect(refused(r.log.tlog_proof.replace('index 5', 'index 05'))).toMatchObject({ ok: false });
  });
});
