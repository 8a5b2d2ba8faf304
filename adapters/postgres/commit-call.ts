import type { AdmissionGuard } from '../../domain/ports/admission-guard.ts';
import type { AppendRow } from '../../domain/ports/append-rows.ts';
import type { AuditLine } from '../../domain/audit/lines.ts';
import type { ExpectedRevision, NewEvent, StreamAt } from '../../domain/ports/event-store.ts';

/** The call of `custodian_commit` (its newest body: migrations/0026_eventstore-008.sql): a whole batch in one statement. */
export const COMMIT_CALL = `SELECT kind, idx, verdict, first_position, last_revision, stream, actual FROM custodian_commit(
  $1::text[], $2::int[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[],
  $11::int[], $12::int[], $13::boolean[], $14::text[], $15::text[], $16::int[],
  $17::int[], $18::text[], $19::bigint[],
  $20::uuid[], $21::text[], $22::int[], $23::jsonb[], $24::jsonb[],
  $25::int[], $26::uuid[],
  $27::int[], $28::text[], $29::text[], $30::bytea[],
  $31::int[], $32::uuid[], $33::text[], $34::text[], $35::text[], $36::text[], $37::text[], $38::bytea[], $39::bytea[],
  $40::int[], $41::int[], $42::text[], $43::text[], $44::text[], $45::text[], $46::int[], $47::jsonb[], $48::text[], $49::text[], $50::text[])`;

/** One unit as the call takes it: its guard's and its chain predecessor's 1-based ordinals, or null. */
export interface CommitUnit {
  readonly guard: number | null;
  readonly after: number | null;
  readonly watched: boolean;
  readonly unmoved: readonly StreamAt[];
  readonly stream: string;
  readonly expected: ExpectedRevision;
  readonly events: readonly NewEvent[];
  readonly rows: readonly AppendRow[];
  /** Its events' audit lines, each placed and timed by the call when the unit commits. */
  readonly lines: readonly AuditLine[];
}

/** A row the call answers: one per unit, then one per guard. */
export interface CommitRow {
  readonly kind: 'unit' | 'guard';
  readonly idx: number;
  readonly verdict: 'committed' | 'conflict' | 'broken' | 'guard_failed' | 'row_taken' | 'held' | 'failed';
  readonly first_position: string | null;
  readonly last_revision: string | null;
  readonly stream: string | null;
  readonly actual: string | null;
}

const expectedText = (expected: ExpectedRevision) => (typeof expected === 'number' ? String(expected) : expected);

/** The rows of one kind, each with its unit's 1-based index, its columns transposed into arrays. */
const rowsOf = (units: readonly CommitUnit[], kind: AppendRow['kind'], columns: number): unknown[][] => {
  const rows = units.flatMap((u, i) => u.rows.filter((r) => r.kind === kind).map((r) => [i + 1, ...r.row.slice(0, columns)]));
  return Array.from({ length: columns + 1 }, (_, c) => rows.map((r) => r[c]));
};

/** The parameters of `COMMIT_CALL` for the batch's guards (their ordinals are their 1-based places here) and units. */
export const commitParams = (guards: readonly AdmissionGuard[], units: readonly CommitUnit[]): unknown[] => {
  const events = units.flatMap((u) => u.events);
  const conditions = units.flatMap((u, i) => u.unmoved.map((c) => ({ unit: i + 1, ...c })));
  const lines = units.flatMap((u, i) => u.lines.map((l) => ({ unit: i + 1, ...l })));
  return [
    guards.map((g) => g.call),
    guards.map((g) => g.index),
    guards.map((g) => g.tenant),
    guards.map((g) => g.jobStream),
    guards.map((g) => g.jobRevision),
    guards.map((g) => g.blockRevisions.join(',')),
    guards.map((g) => g.marks),
    guards.map((g) => g.tenantStream),
    guards.map((g) => g.tenantRevision),
    guards.map((g) => g.requestKey),
    units.map((u) => u.guard),
    units.map((u) => u.after),
    units.map((u) => u.watched),
    units.map((u) => u.stream),
    units.map((u) => expectedText(u.expected)),
    units.map((u) => u.events.length),
    conditions.map((c) => c.unit),
    conditions.map((c) => c.stream),
    conditions.map((c) => (c.revision === 'no_stream' ? null : c.revision)),
    events.map((e) => e.event_id),
    events.map((e) => e.type),
    events.map((e) => e.schema_version),
    events.map((e) => JSON.stringify(e.data)),
    events.map((e) => JSON.stringify(e.metadata)),
    ...rowsOf(units, 'data_key_used', 1),
    ...rowsOf(units, 'subject_key_made', 3),
    ...rowsOf(units, 'data_key_made', 8),
    lines.map((l) => l.unit),
    lines.map((l) => l.event),
    lines.map((l) => l.tenant),
    lines.map((l) => l.kind),
    lines.map((l) => l.job),
    lines.map((l) => l.subject),
    lines.map((l) => l.epoch),
    lines.map((l) => JSON.stringify(l.record_refs)),
    lines.map((l) => l.head),
    lines.map((l) => l.mid),
    lines.map((l) => l.tail),
  ];
};
