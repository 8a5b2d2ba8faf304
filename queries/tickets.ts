import { ticketHash } from '../domain/shared/hash.ts';
import type { Sql } from '../domain/ports/read-model.ts';

export interface TicketHolder {
  readonly tenant: string;
  readonly job: string;
  readonly run: number;
  readonly call: string;
  readonly step: number;
  readonly function: string;
  readonly idempotency_key: string;
  readonly startup: boolean;
}

/**
 * The call behind a bearer ticket, or null: unknown tickets, ended calls and calls of jobs
 * that are no longer running all answer null alike, so a caller learns nothing from which.
 */
export const resolveTicket = async (sql: Sql, ticket: string): Promise<TicketHolder | null> => {
  const hash = ticketHash(ticket);
  const { rows } = await sql.query<TicketHolder>(
    `SELECT c.tenant, c.job, c.run, c.call, c.step, c.function, c.idempotency_key, c.startup
     FROM rm_calls c JOIN rm_jobs j ON j.tenant = c.tenant AND j.id = c.job AND j.run = c.run
     WHERE c.ticket_hash = $1 AND c.ended_ms IS NULL AND j.status = 'running'`,
    [hash],
  );
  return rows[0] ?? null;
};
