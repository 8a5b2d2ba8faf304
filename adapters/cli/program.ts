import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { client, print } from './client.ts';
import { auditCommands } from './audit.ts';
import { kafkaCommands } from './kafka.ts';
import { exportAgentRecords } from './records.ts';
import { CliFailure } from './failure.ts';
import { packageVersion } from './version.ts';

/**
 * The whole command tree; building it runs nothing. The service, the stores and MCP load only
 * when a command needs them, so the commands that call the service over HTTP start quickly.
 */
export const cliProgram = (): Command => {
  const program = new Command()
    .name('custodian')
    .description('Versioned plugin records and the authority agent jobs run under, event-sourced.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError();

  program
    .command('start')
    .description('run the HTTP service on 127.0.0.1 (embedded PostgreSQL unless DATABASE_URL is set)')
    .option('--port <port>', 'port to listen on (PORT, default 41873)')
    .option('--data-dir <dir>', 'data directory (CUSTODIAN_DATA_DIR, default ./data)')
    .action(async (o) => (await import('./start.ts')).start(o));

  program
    .command('database')
    .description("run the data directory's embedded PostgreSQL alone (for pg_dump, pg_restore, psql) until stopped; prints how to connect")
    .option('--data-dir <dir>', 'data directory (CUSTODIAN_DATA_DIR, default ./data)')
    .action(async (o) => (await import('./database-alone.ts')).serveDatabase(o));

  program
    .command('rebuild <projection>')
    .description('replay the event log from position 0 into one read model')
    .option('--data-dir <dir>', 'data directory (CUSTODIAN_DATA_DIR, default ./data)')
    .action(async (name, o) => (await import('./rebuild.ts')).rebuild(name, o));

  const receipt = program.command('receipt').description('signed receipts of revocation batches and erasures');
  receipt
    .command('verify <file>')
    .description('check a receipt (or an answer carrying one in receipt) with the audit public key alone (GET /v1/audit-key)')
    .requiredOption('--public-key <pem>', 'the audit public key (PEM, SPKI), or a file holding it')
    .action(async (file, o) => (await import('./receipt.ts')).verifyReceiptFile(file, o));

  const remote = (c: Command) =>
    c.option('--url <url>', 'the running service (CUSTODIAN_URL, default http://127.0.0.1:$PORT)').option('--data-dir <dir>', 'where the admin key is kept');

  remote(program.command('export').description("a tenant's records rebuilt from the event log, as JSON Lines with a manifest"))
    .requiredOption('--tenant <t>')
    .option('--versions', 'every version, not only the newest')
    .option('--position <p>', 'rebuild as of this log position')
    .action(async (o) => {
      const q = new URLSearchParams({ ...(o.versions ? { versions: 'true' } : {}), ...(o.position ? { position: String(o.position) } : {}) });
      print(await client(o)('GET', `/v1/tenants/${o.tenant}/export?${q}`));
    });

  remote(program.command('import <file>').description('load an export into an empty tenant'))
    .requiredOption('--tenant <t>')
    .action(async (file, o) => print(await client(o)('POST', `/v1/tenants/${o.tenant}/import`, readFileSync(file, 'utf8'), 'application/x-ndjson')));

  remote(program.command('erase').description('erase a data subject by shredding their key; prints the answer {erased, deferred, receipt}'))
    .requiredOption('--tenant <t>')
    .requiredOption('--subject <data_subject>')
    .action(async (o) => print(await client(o)('POST', `/v1/tenants/${o.tenant}/erasures`, { data_subject: o.subject })));

  const agentRecords = program.command('records').description("an agent's records");
  remote(agentRecords.command('export').description("an agent's records as JSON Lines, oldest first"))
    .requiredOption('--tenant <t>')
    .requiredOption('--agent <a>')
    .action(exportAgentRecords);

  program
    .command('mcp')
    .description("an agent's records as MCP tools over stdio")
    .option('--agent-key <key>', 'the agent key (CUSTODIAN_AGENT_KEY)')
    .option('--url <url>', 'the running service (CUSTODIAN_URL, default http://127.0.0.1:$PORT)')
    .action(async (o) => (await import('./mcp.ts')).serveMcp(o));

  const selectorOf = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      throw new CliFailure(`--selector is not JSON: give e.g. --selector '{"data_subject":"user:ada"}'`);
    }
  };

  const hold = program.command('hold').description('legal holds');
  remote(hold.command('place').description('place a hold; the selector is JSON, e.g. \'{"data_subject":"user:ada"}\''))
    .requiredOption('--tenant <t>')
    .requiredOption('--selector <json>')
    .requiredOption('--reason <text>')
    .action(async (o) => print(await client(o)('POST', `/v1/tenants/${o.tenant}/holds`, { selector: selectorOf(o.selector), reason: o.reason })));
  remote(hold.command('release <id>').description('release a hold; deferred erasures run'))
    .requiredOption('--tenant <t>')
    .action(async (id, o) => print(await client(o)('DELETE', `/v1/tenants/${o.tenant}/holds/${id}`)));

  const tenant = program.command('tenant').description('tenants');
  remote(
    tenant
      .command('remove')
      .description(
        'remove a tenant by crypto-shredding its keys: its records can never be read again, its id is retired, its audit log stays; refused while a legal hold is in force',
      ),
  )
    .requiredOption('--tenant <t>')
    .option('--yes', 'confirm: a removal cannot be undone')
    .action(async (o) => {
      if (!o.yes) throw new CliFailure(`removing tenant ${String(o.tenant)} shreds its keys and cannot be undone: run it again with --yes`);
      print(await client(o)('DELETE', `/v1/tenants/${o.tenant}`));
    });

  const retention = program.command('retention').description('retention of ended records');
  remote(retention.command('run').description('run retention for a tenant now'))
    .requiredOption('--tenant <t>')
    .action(async (o) => print(await client(o)('POST', `/v1/tenants/${o.tenant}/retention/run`)));

  auditCommands(program, remote);
  kafkaCommands(program);

  return program;
};
