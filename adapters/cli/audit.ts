import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { verifyBundle, type AuditBundle, type Checkpoint } from '../../domain/audit/verify.ts';
import { COSIGNATURE_V1, ED25519, type NoteKey } from '../../domain/audit/note.ts';
import { client, clientBytes, parseAnswer, print, type ClientOptions } from './client.ts';
import { streamTiles } from './audit-tiles.ts';
import { bundleWriter, readBundleFile } from './audit-bundle-file.ts';
import { readPublicKey } from './verify-inputs.ts';
import { streamedBundleVerifier } from '../../domain/audit/bundle-stream.ts';
import { keyArgument, readVkeyOfType } from './key-argument.ts';
import { CliFailure, oneLine } from './failure.ts';

type Opts = ClientOptions & Record<string, string | boolean | undefined>;

const FILTERS = ['job', 'record', 'kind', 'subject', 'since', 'until', 'epoch'] as const;

const table = (lines: string[]) => {
  const rows = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const records = (r: Record<string, unknown>) =>
    ((r.records as { scope: string; key: string; version: number }[] | undefined) ?? []).map((x) => `${x.scope}#${x.key}#${x.version}`).join(' ');
  const out = [['seq', 'at', 'kind', 'job', 'agent', 'subject', 'records / detail'].join('\t')];
  for (const r of rows)
    out.push(
      [
        r.seq,
        new Date(Number(r.at)).toISOString(),
        r.kind,
        r.job ?? '',
        r.agent ?? '',
        r.subject ?? '',
        records(r) || JSON.stringify(r.stopped ?? r.reason ?? r.hold ?? ''),
      ].join('\t'),
    );
  return `${out.join('\n')}\n`;
};

/** The earlier checkpoint a download starts from, or one line saying why it cannot be read (exit 2, bad input). */
const readCheckpoint = (file: string): Checkpoint => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;
  } catch (error) {
    throw new CliFailure(`--previous ${file}: ${oneLine((error as Error).message)}; give the checkpoint.json an earlier download wrote`, 2);
  }
};

export const auditCommands = (program: Command, remote: (c: Command) => Command) => {
  const audit = program.command('audit').description('the verifiable audit log');

  const replay = remote(audit.command('replay').description('the timeline, filtered, as a table or JSON Lines'))
    .requiredOption('--tenant <t>')
    .option('--jsonl', 'JSON Lines, exactly as hashed')
    .option('--who-read <scope#key#version>', 'who read record R at version V')
    .option('--revocation-epoch <e>', 'which jobs revocation epoch E stopped, under which receipt');
  for (const f of FILTERS) replay.option(`--${f} <value>`);
  replay.action(async (o: Opts) => {
    const q = new URLSearchParams();
    for (const f of FILTERS) if (typeof o[f] === 'string') q.set(f, o[f] as string);
    if (typeof o.whoRead === 'string') {
      q.set('kind', 'read');
      q.set('record', o.whoRead);
    }
    if (typeof o.revocationEpoch === 'string') q.set('epoch', o.revocationEpoch);
    const text = await client(o)('GET', `/v1/tenants/${o.tenant}/audit?${q}`);
    const lines = text.split('\n').filter(Boolean);
    if (typeof o.revocationEpoch === 'string' && !o.jsonl) {
      const rows = lines.map((l) => JSON.parse(l) as { kind: string; stopped?: string[]; receipt?: { signature?: string }; job?: string });
      const receipt = rows.find((r) => r.kind === 'revocation_receipt');
      print(
        JSON.stringify(
          {
            epoch: Number(o.revocationEpoch),
            stopped: receipt?.stopped ?? rows.filter((r) => r.kind === 'job_stopped').map((r) => r.job),
            receipt: receipt?.receipt ?? null,
          },
          null,
          2,
        ),
      );
      return;
    }
    print(o.jsonl ? lines.map((l) => `${l}\n`).join('') : table(lines));
  });

  remote(
    audit
      .command('download')
      .description(
        'the log (a signed checkpoint, then each entry bundle with its hash tile), read as tlog-tiles and streamed as JSON Lines, for offline verification',
      ),
  )
    .requiredOption('--tenant <t>')
    .option('--previous <checkpoint.json>', 'an earlier checkpoint: adds the consistency proof from it')
    .option('--size <n>', 'the checkpoint of the tree at this size (one the witnesses cosigned), not the newest')
    .option('--out <file>', 'write the bundle to this file (default: stdout)')
    .action(async (o: Opts) => {
      const get = client(o);
      const size = typeof o.size === 'string' ? `?size=${encodeURIComponent(o.size)}` : '';
      const checkpoint = parseAnswer<Checkpoint>(await get('GET', `/v1/tenants/${o.tenant}/audit/checkpoint${size}`), 'the checkpoint');
      let previous: AuditBundle['previous'];
      if (typeof o.previous === 'string') {
        const prev = readCheckpoint(o.previous);
        const c =
          prev.size === checkpoint.size ? '{"proof":[]}' : await get('GET', `/v1/tenants/${o.tenant}/audit/proof?from=${prev.size}&to=${checkpoint.size}`);
        previous = { checkpoint: prev, proof: parseAnswer<{ proof: string[] }>(c, 'the consistency proof').proof };
      }
      // The head first, then each tile as it arrives, in order: the log is never held whole.
      const out = await bundleWriter(typeof o.out === 'string' ? o.out : undefined);
      await out.head(checkpoint, previous);
      await streamTiles(clientBytes(o), `/v1/tenants/${encodeURIComponent(String(o.tenant))}/audit/log/`, checkpoint.size, out.tile);
      await out.close();
    });

  remote(audit.command('checkpoint').description('the signed tree head'))
    .requiredOption('--tenant <t>')
    .action(async (o: Opts) => {
      print(await client(o)('GET', `/v1/tenants/${o.tenant}/audit/checkpoint`));
    });

  audit
    .command('verify <bundle>')
    .description('offline, with the public key alone: the log it is, signature, witnesses, inclusion and consistency proofs, full recomputation')
    .option('--public-key <pem>', 'the audit public key (PEM, SPKI: GET /v1/audit-key), or a file holding it')
    .option('--vkey <vkey>', 'the log verifier key (GET /v1/audit-key?format=vkey), or a file holding it, instead of --public-key: it also names the log')
    .option('--tenant <t>', 'the tenant whose log this must be')
    .option('--origin <origin>', 'the exact origin of the log this must be')
    .option('--witness <vkey...>', 'a witness (cosignature verifier key, or a file holding it) that must have cosigned the checkpoint; repeat for each')
    .action(async (file: string, o: { publicKey?: string; vkey?: string; tenant?: string; origin?: string; witness?: string[] }) => {
      const bad = (message: string) => {
        process.stderr.write(`custodian: ${message}\n`);
        process.exitCode = 2;
      };
      if (o.tenant === undefined && o.origin === undefined) return bad('say which log the bundle must be: --tenant <t> or --origin <origin>');
      if ((o.publicKey === undefined) === (o.vkey === undefined)) return bad('give the log key: --public-key <pem file> or --vkey <vkey> (one of them)');
      // Each key is its text or a file holding it, alike.
      const vkey =
        o.vkey === undefined
          ? undefined
          : keyArgument('--vkey', o.vkey, 'a log verifier key (<name>+<hex id>+<base64 of 0x01 and the Ed25519 key>)', readVkeyOfType(ED25519));
      if (vkey && 'problem' in vkey) return bad(vkey.problem);
      const logKey = vkey?.key;
      const witnesses: NoteKey[] = [];
      for (const w of o.witness ?? []) {
        const key = keyArgument(
          '--witness',
          w,
          'a witness verifier key (<name>+<hex id>+<base64 of 0x04 and the Ed25519 key>)',
          readVkeyOfType(COSIGNATURE_V1),
        );
        if ('problem' in key) return bad(key.problem);
        witnesses.push(key.key);
      }
      const pem = o.publicKey === undefined ? '' : readPublicKey(o.publicKey);
      if (pem === null) return;
      const expected = {
        ...(o.tenant !== undefined ? { tenant: o.tenant } : {}),
        ...(o.origin !== undefined ? { origin: o.origin } : {}),
        ...(logKey ? { logKey } : {}),
        witnesses,
      };
      const read = await readBundleFile(file);
      if (read.form === 'unreadable') return bad(read.problem);
      let checkpoint: Checkpoint;
      let previous: AuditBundle['previous'];
      let problems: string[];
      if (read.form === 'streamed') {
        ({ checkpoint, previous } = read.head);
        const verifier = streamedBundleVerifier(pem, read.head, expected);
        for await (const { value, line } of read.records) verifier.record(value, line);
        problems = verifier.finish();
      } else {
        const bundle = read.document as AuditBundle;
        if (typeof bundle !== 'object' || bundle === null || typeof bundle.checkpoint !== 'object' || !Array.isArray(bundle.entries))
          return bad(`${file} is not an audit bundle: give the file custodian audit download wrote`);
        ({ checkpoint, previous } = bundle);
        problems = verifyBundle(pem, bundle, expected);
      }
      if (problems.length === 0) {
        const cosigned = witnesses.length > 0 ? `, cosigned by ${witnesses.map((w) => w.name).join(', ')}` : '';
        process.stdout.write(
          `audit log ${checkpoint.origin} verified: ${checkpoint.size} entries, root ${checkpoint.root}${cosigned}${previous ? `, consistent with the checkpoint of size ${previous.checkpoint.size}` : ''}\n`,
        );
      } else {
        process.stdout.write(`audit log NOT verified:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
        process.exitCode = 1;
      }
    });
};
