import { readVerifyInputs } from './verify-inputs.ts';
import { verifyReceipt } from '../keys/audit-key.ts';

/**
 * `custodian receipt verify <file> --public-key <pem>`: checks a receipt offline, with the
 * audit public key alone. Exit 0 when the signature holds, 1 when it does not, 2 on bad input.
 */
export const verifyReceiptFile = (file: string, opts: { publicKey: string }) => {
  const inputs = readVerifyInputs(file, opts.publicKey);
  if (!inputs) return;
  const result = verifyReceipt(inputs.pem, inputs.document);
  if (result.ok) {
    process.stdout.write('receipt verified: the signature matches the audit key\n');
  } else {
    process.stdout.write(`receipt NOT verified: ${result.reason}\n`);
    process.exitCode = 1;
  }
};
