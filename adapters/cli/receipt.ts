import { readFileSync } from 'node:fs';
import { verifyReceipt } from '../keys/audit-key.ts';

/**
 * `custodian receipt verify <file> --public-key <pem>`: checks a receipt offline, with the
 * audit public key alone. Exit 0 when the signature holds, 1 when it does not, 2 on bad input.
 */
export const verifyReceiptFile = (file: string, opts: { publicKey: string }) => {
  let receipt: unknown;
  let pem: string;
  try {
    receipt = JSON.parse(readFileSync(file, 'utf8'));
    pem = readFileSync(opts.publicKey, 'utf8');
  } catch (error) {
    process.stderr.write(`custodian: ${(error as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const result = verifyReceipt(pem, receipt);
  if (result.ok) {
    process.stdout.write('receipt verified: the signature matches the audit key\n');
  } else {
    process.stdout.write(`receipt NOT verified: ${result.reason}\n`);
    process.exitCode = 1;
  }
};
