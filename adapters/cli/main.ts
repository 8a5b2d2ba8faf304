import { Command } from 'commander';
import { rebuild } from './rebuild.ts';
import { start } from './start.ts';
import { verifyReceiptFile } from './receipt.ts';

const program = new Command()
  .name('custodian')
  .description('Versioned plugin records and the authority agent jobs run under, event-sourced.')
  .showHelpAfterError();

program
  .command('start')
  .description('run the HTTP service on 127.0.0.1 (embedded PostgreSQL unless DATABASE_URL is set)')
  .option('--port <port>', 'port to listen on (PORT, default 41873)')
  .option('--data-dir <dir>', 'data directory (CUSTODIAN_DATA_DIR, default ./data)')
  .action(start);

program
  .command('rebuild <projection>')
  .description('replay the event log from position 0 into one read model')
  .option('--data-dir <dir>', 'data directory (CUSTODIAN_DATA_DIR, default ./data)')
  .action(rebuild);

const receipt = program.command('receipt').description('signed receipts of revocation batches and erasures');
receipt
  .command('verify <file>')
  .description('check a receipt with the audit public key alone (GET /v1/audit-key)')
  .requiredOption('--public-key <pem>', 'file holding the audit public key (PEM, SPKI)')
  .action(verifyReceiptFile);

await program.parseAsync(process.argv);
