import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventRegistry } from '../../../domain/events/registry.ts';
import { REFUSAL_CODES } from '../../../domain/shared/refusal.ts';
import { AUDIT_KINDS } from '../../../domain/audit/kinds.ts';
import { STATUS } from '../../../adapters/http/status.ts';
import { allEventSchemas, fieldsOf } from '../../support/event-fields.ts';
import { REPO } from '../../support/npm-start.ts';
import { documents } from '../../support/snippets.ts';

const read = (file: string) => readFileSync(path.join(REPO, file), 'utf8');

/** Words a user cannot resolve: the spec's section numbers, issue numbers, attack rounds, seed files, a sibling checkout. */
const UNRESOLVABLE = /SPEC(\.md| §)|§ ?[0-9]|red ?team|seed 0[0-9]|issue [0-9]|\.\.\/shared/i;

const filesUnder = (dir: string, ext: RegExp): string[] =>
  existsSync(path.join(REPO, dir))
    ? readdirSync(path.join(REPO, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => ext.test(f))
        .map((f) => path.join(dir, f))
    : [];

/** The string literals of a source file's code lines (comments may cite the spec; users never read them). */
const literals = (source: string): string[] =>
  source
    .split('\n')
    .filter((l) => !/^\s*(\/\/|\*|\/\*)/.test(l))
    .map((l) => l.replace(/\s\/\/ .*$/, ''))
    .flatMap((l) => [...l.matchAll(/(['"`])((?:\\.|(?!\1).)*)\1/g)].map((m) => m[2]!));

describe('what a user reads names nothing a user cannot resolve', () => {
  const pages = ['README.md', 'bench/README.md', ...filesUnder('docs', /\.md$/)];

  it.each(pages)('%s', (file) => {
    const hits = read(file)
      .split('\n')
      .map((line, i) => ({ line: i + 1, text: line }))
      .filter((l) => UNRESOLVABLE.test(l.text));
    expect(hits).toEqual([]);
  });

  it('--help texts, error messages and OpenAPI descriptions (string literals of adapters/cli, adapters/http, adapters/mcp)', () => {
    const sources = ['adapters/cli', 'adapters/http', 'adapters/mcp'].flatMap((d) => filesUnder(d, /\.ts$/));
    expect(sources.length).toBeGreaterThan(20);
    const hits = sources.flatMap((file) =>
      literals(read(file))
        .filter((s) => UNRESOLVABLE.test(s))
        .map((s) => `${file}: ${s}`),
    );
    expect(hits).toEqual([]);
  });

  it('the rule itself sees what it must refuse', () => {
    for (const bad of ['see SPEC §4', '../shared/SPEC.md', 'red team 6', 'redteam', 'seed 003', 'issue 14', '§13']) expect(UNRESOLVABLE.test(bad)).toBe(true);
    expect(literals(`const a = 'SPEC §12'; // SPEC §4\n// issue 14\n * red team`)).toEqual(['SPEC §12']);
  });
});

describe('README.md', () => {
  it('is at most 16,000 bytes', () => {
    expect(Buffer.byteLength(read('README.md'))).toBeLessThanOrEqual(16_000);
  });

  it('links every page under docs/', () => {
    const readme = read('README.md');
    expect(filesUnder('docs', /\.md$/).filter((f) => !readme.includes(`(${f})`))).toEqual([]);
  });
});

describe('links between the documents', () => {
  it('every relative link names a file that exists (the client pages come from their own packages)', () => {
    const broken = documents().flatMap((file) =>
      [...read(file).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
        .map((m) => m[1]!)
        .filter((target) => !/^[a-z]+:/.test(target))
        .map((target) => path.normalize(path.join(path.dirname(file), target)))
        .filter((target) => !target.startsWith('docs/clients/') && !existsSync(path.join(REPO, target)))
        .map((target) => `${file} → ${target}`),
    );
    expect(broken).toEqual([]);
  });
});

describe('docs/reference/events.md', () => {
  const text = read('docs/reference/events.md');
  const section = (type: string) => {
    const start = text.indexOf(`\n### ${type}\n`);
    if (start < 0) return '';
    const end = text.indexOf('\n#', start + type.length + 6);
    return text.slice(start, end < 0 ? undefined : end);
  };

  it('lists the event types the registry decodes, no more and no fewer', () => {
    expect(allEventSchemas.map((s) => s.type)).toEqual(eventRegistry.types);
    const documented = [...text.matchAll(/^### (\w+)$/gm)].map((m) => m[1]);
    expect([...documented].sort()).toEqual([...eventRegistry.types].sort());
  });

  it.each(allEventSchemas.map((s) => [s.type, s] as const))('%s: its version, every field and every upcaster', (type, schema) => {
    const s = section(type);
    expect(s).toContain(`Version ${schema.version}.`);
    expect(fieldsOf(schema.codec).length).toBeGreaterThan(0);
    for (const field of fieldsOf(schema.codec)) expect(s, field).toContain(`\`${field}\``);
    for (const from of Object.keys(schema.upcasters ?? {})) expect(s).toContain(`v${from} → v${Number(from) + 1}`);
  });
});

describe('docs/guides/auditors.md', () => {
  const text = read('docs/guides/auditors.md');
  // The rows of the table of kinds (the one headed `| kind | written when |`): `| \`a\`, \`b\` | written when |`.
  const kindsTable = text.slice(text.indexOf('| kind | written when |'));
  const tabled = kindsTable
    .slice(0, kindsTable.search(/\n\n/))
    .split('\n')
    .filter((l) => /^\| `[a-z_]+`/.test(l))
    .flatMap((l) => [...l.split('|')[1]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!));

  it.each([...AUDIT_KINDS])('the table of kinds says when %s is written', (kind) => {
    expect(tabled).toContain(kind);
  });

  it('names no kind an entry never has', () => {
    expect(tabled.filter((k) => !(AUDIT_KINDS as readonly string[]).includes(k))).toEqual([]);
  });
});

describe('docs/reference/errors.md', () => {
  const text = read('docs/reference/errors.md');
  it.each([...REFUSAL_CODES])('%s: a row with its HTTP status', (code) => {
    expect(text).toMatch(new RegExp(`^\\| \`${code}\` \\| ${STATUS[code]} \\|`, 'm'));
  });
});

describe('docs/reference/cli.md', () => {
  const text = read('docs/reference/cli.md');
  const names = filesUnder('adapters/cli', /\.ts$/).flatMap((f) => [...read(f).matchAll(/\.command\('([a-z-]+)/g)].map((m) => m[1]!));

  it.each([...new Set(names)])('names the command %s', (name) => {
    expect(text).toMatch(new RegExp(`\`custodian [^\`]*\\b${name}\\b`));
  });
});
