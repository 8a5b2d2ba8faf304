import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layer rule of eslint.config.js, checked by linting small sources as if they sat in
 * each folder: a handler that imports an adapter must fail the lint, one on a port must not.
 */
const eslint = new ESLint();
const restricted = async (filePath: string, code: string) => {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
};

describe('layer boundaries (eslint no-restricted-imports)', () => {
  it.each([
    ['commands/x.ts', "import { signReceipt } from '../adapters/keys/audit-key.ts';\nexport const x = signReceipt;\n"],
    ['queries/x.ts', "import { createPool } from '../adapters/postgres/pool.ts';\nexport const x = createPool;\n"],
    ['projections/x.ts', "import type { Keystore } from '../adapters/keys/keystore.ts';\nexport type X = Keystore;\n"],
    ['domain/jobs/x.ts', "import { envelopeMacs } from '../../adapters/keys/envelope-keys.ts';\nexport const x = envelopeMacs;\n"],
  ])('%s may not import an adapter', async (file, code) => {
    expect(await restricted(file, code)).toEqual(expect.arrayContaining([expect.stringContaining('depend on a port')]));
  });

  it('domain/ may not import outside domain/', async () => {
    expect(await restricted('domain/jobs/x.ts', "import { getJob } from '../../queries/jobs.ts';\nexport const x = getJob;\n")).toHaveLength(1);
  });

  it('ports and other domain modules pass', async () => {
    expect(
      await restricted('commands/x.ts', "import type { ReceiptSigner } from '../domain/ports/receipt-signer.ts';\nexport type X = ReceiptSigner;\n"),
    ).toEqual([]);
    expect(await restricted('domain/jobs/x.ts', "import type { Refusal } from '../shared/refusal.ts';\nexport type X = Refusal;\n")).toEqual([]);
  });

  it('the adapters themselves may import adapters', async () => {
    expect(await restricted('adapters/x.ts', "import { signReceipt } from './keys/audit-key.ts';\nexport const x = signReceipt;\n")).toEqual([]);
  });
});
