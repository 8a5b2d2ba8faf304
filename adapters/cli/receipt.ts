import { readVerifyInputs } from './verify-inputs.ts';
import { verifyReceipt } from '../keys/audit-key.ts';
import { verifyReceiptLog } from '../../domain/audit/receipt-proof.ts';

/**
 * `custodian receipt verify <file> --public-key <pem>`: checks a receipt offline, with the
 * audit public key alone: its signature and, when it carries one, the proof that it was logged
 * (its audit entry, a signed checkpoint and the inclusion proof). Exit 0 when everything holds,
 * 1 when something does not, 2 on bad input.
 */
export const verifyReceiptFile = (file: string, opts: { publicKey: string }) => {
  const inputs = readVerifyInputs(file, opts.publicKey);
  if (!inputs) return;
  const result = verifyReceipt(inputs.pem, inputs.document);
  if (!result.ok) {
    process.stdout.write(`receipt NOT verified: ${result.reason}\n`);
    process.exitCode = 1;
    return;
  }
  const receipt = inputs.document as Record<string, unknown>;
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
