import type pg from 'pg';
import type { StreamMarks } from '../../domain/ports/event-store.ts';
import { prepared } from '../postgres/prepared.ts';

/**
 * The stream's revision and, for each asked-for event, its row's `xmin`: any UPDATE (or
 * DELETE and INSERT) of that row writes a new tuple with the writer's transaction id, so an
 * edit made in place with SQL changes the mark even though the stream's revision stays.
 * One indexed read of the stream head and of a few rows, however long the stream is.
 */
export const postgresStreamMarks =
  (pool: pg.Pool) =>
  async (stream: string, revisions: readonly number[]): Promise<StreamMarks> => {
    const { rows } = await pool.query<{ revision: string | null; marks: string | null }>(
      prepared(
        `SELECT (SELECT revision FROM custodian_streams WHERE stream = $1) AS revision,
                (SELECT string_agg(revision || ':' || xmin::text, ',' ORDER BY revision)
                   FROM custodian_events WHERE stream = $1 AND revision = ANY($2::bigint[])) AS marks`,
        [stream, revisions],
      ),
    );
    return { revision: rows[0]?.revision === null || rows[0]?.revision === undefined ? -1 : Number(rows[0].revision), marks: rows[0]?.marks ?? '' };
  };
