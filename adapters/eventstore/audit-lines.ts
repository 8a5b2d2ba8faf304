import * as E from 'fp-ts/lib/Either.js';
import type { JobFacts } from '../../domain/audit/entries.ts';
import { auditLines, namedRuns, recordRef } from '../../domain/audit/lines.ts';
import { eventRegistry, type DomainEvent } from '../../domain/events/registry.ts';
import type { AppendResult, AppendUnit, EventStore } from '../../domain/ports/event-store.ts';
import { jobStream } from '../../domain/shared/names.ts';

const JOB_MEMORY = 50_000;
const refOf = (tenant: string, job: string, run: number) => `${tenant}\u0000${job}\u0000${run}`;

/**
 * The layer that builds each unit's audit lines, once, before the unit is committed: a unit
 * leaves here as a new value with its `audit` lines and is never changed after. A line names
 * the facts of the job run an event names (agent, purpose, subject: its `JobStarted`, the
 * first for that run, read once from the job's stream through `inner` — MAC-checked — and
 * kept, since a run's start never changes) and the newest version of a removed record (the
 * unit's `newest`, from the decision that made it). The stored line is the one the audit
 * log hashes: nothing derives it again.
 */
export const auditLinesStore = (inner: EventStore): EventStore => {
  const jobs = new Map<string, JobFacts>();
  const remember = (tenant: string, job: string, run: number, facts: JobFacts) => {
    if (jobs.size >= JOB_MEMORY) jobs.clear();
    if (!jobs.has(refOf(tenant, job, run))) jobs.set(refOf(tenant, job, run), facts);
  };

  /** The runs' facts not yet known, from their job streams' first `JobStarted` of that run. */
  const lookUp = async (runs: readonly { tenant: string; job: string; run: number }[]) => {
    const missing = new Map<string, { tenant: string; job: string }>();
    for (const r of runs) if (!jobs.has(refOf(r.tenant, r.job, r.run))) missing.set(jobStream(r.tenant, r.job), r);
    await Promise.all(
      [...missing].map(async ([stream, { tenant, job }]) => {
        for (const recorded of await inner.readStream(stream)) {
          if (recorded.type !== 'JobStarted') continue;
          const decoded = eventRegistry.decode(recorded.type, recorded.schema_version, recorded.data);
          if (E.isLeft(decoded) || decoded.right.type !== 'JobStarted') continue;
          const d = decoded.right.data;
          if (d.tenant === tenant && d.job === job) remember(tenant, job, d.run, { agent: d.agent, purpose: d.purpose, subject: d.subject });
        }
      }),
    );
  };

  const withLines = async (u: AppendUnit): Promise<AppendUnit> => {
    if (u.audit !== undefined) return u;
    const events = u.events as unknown as readonly DomainEvent[];
    await lookUp(namedRuns(events));
    const lines = auditLines(events, {
      job: (tenant, job, run) => jobs.get(refOf(tenant, job, run)) ?? null,
      newest: (_tenant, plugin, scope, key) => u.newest?.get(recordRef(plugin, scope, key)) ?? null,
    });
    return { ...u, audit: lines };
  };

  /** A committed unit's job starts are facts of their runs from now on. */
  const heard = (u: AppendUnit, r: AppendResult) => {
    if (E.isLeft(r)) return;
    for (const e of u.events as unknown as readonly DomainEvent[])
      if (e.type === 'JobStarted') remember(e.data.tenant, e.data.job, e.data.run, { agent: e.data.agent, purpose: e.data.purpose, subject: e.data.subject });
  };

  return {
    ...inner,
    async append(stream, events, expected, options = {}) {
      const unit = await withLines({ ...options, stream, events, expected });
      const { stream: _s, events: _e, expected: _x, ...carries } = unit;
      const result = await inner.append(stream, events, expected, carries);
      heard(unit, result);
      return result;
    },
    appendChain(units) {
      // Every unit's lines first, then the chain as one submission (the store commits it together).
      const submitted = Promise.all(units.map(withLines)).then((us) => ({ us, answers: inner.appendChain(us) }));
      return units.map((_, i) =>
        submitted.then(async ({ us, answers }) => {
          const result = await answers[i]!;
          heard(us[i]!, result);
          return result;
        }),
      );
    },
  };
};
