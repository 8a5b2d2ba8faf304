import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missing, python } from '../../support/python.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * /openapi.json is a valid OpenAPI 3.1 document, checked by a standard validator
 * (openapi-spec-validator), and every `$ref` in it names something the document defines: a
 * client generator or a fuzzer can use every operation's schema.
 */
const noValidator = missing('openapi-spec-validator');
if (noValidator) console.log(`skipped: ${noValidator}`);

let svc: TestService;
let doc: any;
const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  doc = await (await fetch(`${svc.url}/openapi.json`)).json();
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Every `$ref` in a value, with where it stands. */
const refs = (value: unknown, at = '#'): { at: string; ref: string }[] => {
  if (Array.isArray(value)) return value.flatMap((v, i) => refs(v, `${at}/${i}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [{ at, ref: v }] : refs(v, `${at}/${k}`)));
};

/** What a local reference (`#/components/schemas/JsonValueInput`) points at, or undefined. */
const resolve = (ref: string) =>
  ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((node, part) => (node === undefined ? undefined : node[part]), doc);

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 and defines every schema it refers to', () => {
    expect(doc.openapi).toBe('3.1.0');
    const found = refs(doc);
    // The records API's body and a job's input refer to the JSON value: it must be there.
    expect(found.map((r) => r.ref)).toContain('#/components/schemas/JsonValueInput');
    const dangling = found.filter((r) => !r.ref.startsWith('#/') || resolve(r.ref) === undefined);
    expect(dangling).toEqual([]);
  });

  it.skipIf(noValidator !== null)('passes openapi-spec-validator', () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const check = ['import json, sys', 'from openapi_spec_validator import validate', 'validate(json.load(open(sys.argv[1])))', 'print("valid")'].join('\n');
    const r = spawnSync(python(), ['-c', check, file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('valid');
  });

  it.skipIf(noValidator !== null)('the validator refuses a document that breaks the rules (the check can fail)', () => {
    const broken = structuredClone(doc);
    broken.paths['/v1/tenants'].post.responses = 'none';
    const file = join(dir, 'broken.json');
    writeFileSync(file, JSON.stringify(broken));
    const r = spawnSync(python(), ['-c', 'import json, sys\nfrom openapi_spec_validator import validate\nvalidate(json.load(open(sys.argv[1])))', file], {
      encoding: 'utf8',
    });
    expect(r.status).not.toBe(0);
  });
});
