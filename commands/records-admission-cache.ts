import type { AdmissionGuard } from '../domain/ports/admission-guard.ts';
import { MAX_REQUESTS_PER_CALL } from '../domain/records/rules.ts';
import { ticketHash } from '../domain/shared/hash.ts';
import { jobStream, tenantStream } from '../domain/shared/names.ts';
import type { LogHeads } from '../queries/admission.ts';
import type { CallContext } from '../queries/call-context.ts';

interface Entry {
  readonly ctx: CallContext;
  readonly heads: LogHeads;
  /** The highest request index handed out for the call (the count the next guard expects). */
  n: number;
  readonly at: number;
}

/**
 * How long a full admission is reused. The log heads the guard checks catch every event that
 * changes the call, and a context is kept only when its read models held those heads' events
 * (`modelsCurrent`); the age bound is a second line, not the first.
 */
const MAX_AGE_MS = 1_000;
const CAPACITY = 4_096;

const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((r, i) => r === b[i]);

/**
 * The call-context cache (ticket hash → the context the fence last admitted, and the log
 * heads it was admitted at). A request it admits runs no statement of its own: it carries an
 * `AdmissionGuard`, and its count and the checks of those heads commit in the transaction of
 * its first append — so another instance that ends the call, stops the job, revokes or edits
 * a block (every one of them moves a head the guard checks) makes the guard fail, and the
 * request is admitted again in full, by the fence, from the log.
 */
export const admissionCache = (now: () => number) => {
  const entries = new Map<string, Entry>();

  return {
    /** The next request on a cached ticket: its context, index and guard; null when it must be admitted in full. */
    take(ticket: string): { ctx: CallContext; index: number; guard: AdmissionGuard } | null {
      const hash = ticketHash(ticket);
      const e = entries.get(hash);
      if (!e) return null;
      // Past the call's last request, expired or old: the full path answers (and counts) it.
      if (e.n >= MAX_REQUESTS_PER_CALL || e.ctx.expires_ms <= now() || Date.now() - e.at > MAX_AGE_MS) {
        entries.delete(hash);
        return null;
      }
      const index = ++e.n;
      const { ctx, heads } = e;
      return {
        ctx,
        index,
        guard: {
          call: ctx.call,
          index,
          tenant: ctx.tenant,
          jobStream: jobStream(ctx.tenant, ctx.job),
          jobRevision: heads.jobRevision,
          blockRevisions: heads.blockRevisions,
          marks: heads.marks,
          tenantStream: tenantStream(ctx.tenant),
          tenantRevision: heads.tenantRevision,
          requestKey: null,
        },
      };
    },
    /**
     * Keeps a full admission — only when the fence decided on exactly the heads the statement
     * read (the job at that revision, its blocks those whose marks were read), so the guard's
     * heads are the ones the decision rests on, and when the read models the context came from
     * held those heads' events (settings and scopes are read from them, not folded from the log).
     */
    keep(ticket: string, ctx: CallContext, index: number, heads: LogHeads | null, blocksNow: readonly number[]) {
      if (!heads || !heads.modelsCurrent || ctx.job_revision !== heads.jobRevision || !same(blocksNow, heads.blockRevisions)) return;
      const hash = ticketHash(ticket);
      entries.delete(hash);
      entries.set(hash, { ctx, heads, n: index, at: Date.now() });
      if (entries.size > CAPACITY) entries.delete(entries.keys().next().value!);
    },
    drop(ticket: string) {
      entries.delete(ticketHash(ticket));
    },
  };
};
