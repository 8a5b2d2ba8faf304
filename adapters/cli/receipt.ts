import { readVerifyInputs } from './verify-inputs.ts';
import { verifyReceipt } from '../keys/audit-key.ts';
import { verifyReceiptLog } from '../../domain/audit/receipt-proof.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The receipt a file holds: the receipt itself, or an answer that carries one in `receipt`
 * (what `custodian erase` prints and a revocation batch answers), taken as it is.
 */
export const receiptOf = (document: unknown): unknown =>
  isObject(document) && !Object.hasOwn(document, 'signature') && isObject(document.receipt) ? document.receipt : document;

/**
 * `custodian receipt verify <file> --public-key <pem>`: checks a receipt offline, with the
 * audit public key alone (its text or a file): its signature and, when it carries one, the
 * proof that it was logged (its audit entry, a signed checkpoint and the inclusion proof). Exit
 * 0 when everything holds, 1 when something does not, 2 on bad input.
 */
export const verifyReceiptFile = (file: string, opts: { publicKey: string }) => {
  const inputs = readVerifyInputs(file, opts.publicKey);
  if (!inputs) return;
  const document = receiptOf(inputs.document);
  const result = verifyReceipt(inputs.pem, document);
  if (!result.ok) {
    process.stdout.write(`receipt NOT verified: ${result.reason}\n`);
    process.exitCode = 1;
    return;
  }
  const receipt = document as Record<string, unknown>;
  const signed = `the signature matches the audit key${result.legacy ? ' (a receipt signed before receipts carried their prefix)' : ''}`;
  if (receipt.log === undefined) {
    process.stdout.write(`receipt verified: ${signed}; it carries no proof that it was logged\n`);
    return;
  }
  const logged = verifyReceiptLog(inputs.pem, receipt);
  if (logged.ok) {
    process.stdout.write(
      `receipt verified: ${signed}, and it is entry ${logged.index} of the audit log ${logged.origin} (checkpoint of size ${logged.size})\n`,
    );
  } else {
    process.stdout.write(`receipt NOT verified as logged (${signed}):\n${logged.problems.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exitCode = 1;
  }
};
