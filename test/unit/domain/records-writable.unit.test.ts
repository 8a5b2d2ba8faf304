import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { decidePut, type PutRecord, type Writer } from '../../../domain/records/decide.ts';
import { evolveScope, initialScopeState, newest } from '../../../domain/records/state.ts';
import { checkScope, nextPutRefusal } from '../../../domain/records/write-rules.ts';
import type { RecordScopeKind } from '../../../domain/tenants/events.ts';
import { defaultSettings, type TenantSettings } from '../../../domain/tenants/settings.ts';

const NOW = 1_000_000_000_000;
let rk = 0;
const writer = (over: Partial<Writer>): Writer => ({
  job: 'j',
  run: 1,
  call: 'c',
  step: 1,
  agent: 'scribe',
  plugin: 'notes',
  purpose: 'p',
  data_subject: null,
  labels: [],
  tainted: false,
  ...over,
});
const put = (settings: TenantSettings, w: Writer, scope: string, expect: number, subject_kind: 'work' | 'person' | null): PutRecord => ({
  tenant: 't',
  plugin: 'notes',
  settings,
  writer: w,
  request_key: `rk${++rk}`,
  scope,
  key: 'k',
  expect,
  kind: 'note',
  state: 'active',
  supersedes: null,
  ends_at: null,
  subject_kind,
  closed: false,
  body: { k: 'key', n: 'n', c: 'c' },
  body_bytes: 10,
  dedupe_digest: null,
  now: NOW,
});

/** The refusal the next put with the request's defaults meets at checks 4–9, through the put path itself. */
const putRefusal = (settings: TenantSettings, scopes: readonly RecordScopeKind[], w: Writer, first: PutRecord) => {
  const written = decidePut(first, initialScopeState());
  if (E.isLeft(written)) return 'unwritten';
  const state = written.right.reduce(evolveScope, initialScopeState());
  const scope = checkScope(scopes, w, first.scope);
  if (scope) return scope.error;
  const next = decidePut(put(settings, w, first.scope, newest(state.records.get('k'))!.version, null), state);
  return E.isLeft(next) ? next.left.error : null;
};

describe('writable is whether the next put would pass checks 4, 7, 8 and 9', () => {
  it('given a record, when a job asks writable, then it agrees with the put decider for every writer and setting', () => {
    const agent = fc.constantFrom('scribe', 'other');
    const purpose = fc.constantFrom('p', 'q', '');
    fc.assert(
      fc.property(
        fc.record({
          author: fc.record({ agent, purpose, data_subject: fc.constantFrom(null, 'user:ada') }),
          reader: fc.record({ agent, purpose, data_subject: fc.constantFrom(null, 'user:bo') }),
          scope: fc.constantFrom('tenant', 'project:x', 'agent:scribe', 'agent:other'),
          kind: fc.constantFrom<'work' | 'person' | null>(null, 'work', 'person'),
          memory: fc.subarray([
            { agent: 'scribe', purpose: 'p' },
            { agent: 'notes/other', purpose: 'p' },
            { agent: 'other', purpose: 'q' },
          ]),
          shared: fc.subarray(['tenant', 'project:x']),
          scopes: fc.subarray<RecordScopeKind>(['agent', 'project', 'tenant'], { minLength: 1 }),
        }),
        (g) => {
          const settings = { ...defaultSettings(), person_memory: g.memory, person_shared_scopes: g.shared };
          const first = put(settings, writer(g.author), g.scope, 0, g.kind);
          const written = decidePut(first, initialScopeState());
          fc.pre(E.isRight(written));
          const state = written.right.reduce(evolveScope, initialScopeState());
          const v = newest(state.records.get('k'))!;
          const reader = writer(g.reader);
          const shown = nextPutRefusal(settings, g.scopes, reader, { scope: g.scope, purpose: v.purpose, subject_kind: v.subject_kind });
          expect(shown?.error ?? null).toBe(putRefusal(settings, g.scopes, reader, first));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('given a person record, when an agent without memory about people reads it, then it is not writable (person_off)', () => {
    const settings = { ...defaultSettings(), person_memory: [{ agent: 'scribe', purpose: 'p' }], person_shared_scopes: ['tenant'] };
    const refusal = nextPutRefusal(settings, ['tenant'], writer({ agent: 'other' }), { scope: 'tenant', purpose: 'p', subject_kind: 'person' });
    expect(refusal?.error).toBe('person_off');
    expect(nextPutRefusal(settings, ['tenant'], writer({}), { scope: 'tenant', purpose: 'p', subject_kind: 'person' })).toBeNull();
  });
});
