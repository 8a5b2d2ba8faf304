import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hygieneRefusal } from '../../../adapters/http/hygiene.ts';
import { RecordsRequest, RecordsRequestOfParsedJson } from '../../../adapters/http/records-schemas.ts';
import { refusalOfIssue, type SchemaIssue } from '../../../adapters/http/schema-refusal.ts';

/** What a schema answers for a body: the request as JSON, or its issues and the refusal the route makes of the first. */
const answer = (schema: typeof RecordsRequest | typeof RecordsRequestOfParsedJson, body: unknown) => {
  const parsed = schema.safeParse(body);
  if (parsed.success) return { json: JSON.stringify(parsed.data) };
  return { issues: parsed.error.issues, refusal: refusalOfIssue(parsed.error.issues[0] as SchemaIssue, schema, body) };
};

const field = fc.constantFrom(
  'op',
  'scope',
  'record_key',
  'body',
  'expect',
  'kind',
  'state',
  'dedupe',
  'supersedes',
  'ends_at',
  'subject_kind',
  'closed',
  'version',
  'list',
  'x',
);
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('put', 'get', 'history', 'list', 'project:a', 'tenant', 'k1', 0, 3, -1, true),
  fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })),
);
const text = fc.oneof(fc.string({ maxLength: 3 }), fc.constant(''), fc.constant('w'.repeat(65)), fc.constant(5));
/** Requests as JSON.parse makes them, with the hygiene walk passed (what the route's check is given). */
const parsedBodies = fc
  .oneof(
    fc.dictionary(field, value),
    // Puts, each optional field absent, good or not.
    fc.record(
      {
        op: fc.constant('put'),
        scope: fc.constantFrom('project:a', 'tenant', 'nowhere'),
        record_key: fc.constantFrom('k', 'a b'),
        expect: fc.oneof(fc.nat(5), fc.constant(-1), fc.constant(1.5)),
        body: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue({ maxDepth: 1 })),
        kind: text,
        state: text,
        dedupe: text,
        supersedes: fc.constantFrom('k', 'a b', 7),
        ends_at: fc.oneof(fc.nat(), fc.constant(-5), fc.constant(9e15), fc.constant('soon')),
        subject_kind: fc.constantFrom('work', 'person', 'other'),
        closed: fc.oneof(fc.boolean(), fc.constant(0)),
        extra: fc.constant(1),
      },
      { requiredKeys: ['op', 'scope', 'record_key', 'expect', 'body'] },
    ),
    fc.jsonValue({ maxDepth: 2 }),
  )
  .map((v) => JSON.parse(JSON.stringify(v)) as unknown)
  .filter((v) => hygieneRefusal(v, '') === null);

describe("the records route's check of a parsed body answers as the documented schema", () => {
  it('given any request JSON.parse made and the hygiene walk passed, then it passes or fails as RecordsRequest, with the same request, issues and refusal', () => {
    fc.assert(
      fc.property(parsedBodies, (body) => {
        expect(answer(RecordsRequestOfParsedJson, body)).toEqual(answer(RecordsRequest, body));
      }),
      { numRuns: 3000 },
    );
  });

  it('given a put whose body is not an object, then both refuse it at body', () => {
    for (const body of [[1], 'text', null, 3]) {
      const request = { op: 'put', scope: 'tenant', record_key: 'k', expect: 0, body };
      expect(answer(RecordsRequestOfParsedJson, request)).toEqual(answer(RecordsRequest, request));
      expect(answer(RecordsRequestOfParsedJson, request)).toHaveProperty('issues.0.path', ['body']);
    }
  });
});
