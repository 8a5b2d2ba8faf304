import { readFileSync } from 'node:fs';

/**
 * The two inputs of an offline check: a JSON document and the audit public key (PEM). On
 * unreadable input it says why and sets exit code 2, the verify commands' "bad input".
 */
export const readVerifyInputs = (file: string, publicKeyFile: string): { document: unknown; pem: string } | null => {
  try {
    return { document: JSON.parse(readFileSync(file, 'utf8')), pem: readFileSync(publicKeyFile, 'utf8') };
  } catch (error) {
    process.stderr.write(`custodian: ${(error as Error).message}\n`);
    process.exitCode = 2;
    return null;
  }
};

/** The document alone (the key came on the command line, as a vkey); `pem` is empty. */
export const readDocument = (file: string): { document: unknown; pem: string } | null => {
  try {
    return { document: JSON.parse(readFileSync(file, 'utf8')), pem: '' };
  } catch (error) {
    process.stderr.write(`custodian: ${(error as Error).message}\n`);
    process.exitCode = 2;
    return null;
  }
};
