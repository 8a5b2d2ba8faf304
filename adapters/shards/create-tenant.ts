import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_ADMIN_BODY_BYTES } from '../http/body-limits.ts';
import type { Cells } from './cells.ts';
import { forwardedHeaders, readBody, sendInjected, sendJson } from './http-io.ts';
import type { PlacementStore } from './placement.ts';
import { adoptIfHeld } from './adopt.ts';
import type { LightMyRequestResponse } from 'fastify';
import { TENANT_ID } from '../../domain/shared/names.ts';

/**
 * `POST /v1/tenants` (the admin key already checked): places the tenant — on `database` when
 * given, else on the database with the fewest tenants — under the control database's lock, and
 * creates it there; the answer names the database. Any body the cell would refuse is passed to
 * it unchanged, so the refusal is the one a single database gives.
 */
export const createTenant = async (req: IncomingMessage, res: ServerResponse, cells: Cells, placement: PlacementStore): Promise<void> => {
  const raw = await readBody(req, MAX_ADMIN_BODY_BYTES);
  if (raw === null)
    return sendJson(
      res,
      413,
      { error: 'too_large', field: 'body', limit: MAX_ADMIN_BODY_BYTES, message: `the body is too large (at most ${MAX_ADMIN_BODY_BYTES} bytes): send less` },
      { connection: 'close' },
    );
  const inject = (name: string, payload: string | Buffer) =>
    cells.byName.get(name)!.app.inject({ method: 'POST', url: req.url ?? '/v1/tenants', headers: forwardedHeaders(req), payload });
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    body = undefined;
  }
  const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  // An id that is no tenant id (a NUL, a lone surrogate) never reaches a placement query: the cell refuses it.
  if (!fields || typeof fields.id !== 'string' || !TENANT_ID.test(fields.id)) return sendInjected(res, await inject(cells.names[0]!, raw));
  const { database, ...rest } = fields;
  if (database !== undefined && (typeof database !== 'string' || !cells.byName.has(database))) {
    const known = cells.names.join(', ');
    return sendJson(res, 400, {
      error: 'invalid',
      field: 'database',
      reason: `name one of the tenant databases (${known}), or leave it out to place the tenant on the one with the fewest tenants`,
      message: `database: name one of the tenant databases (${known}), or leave it out`,
    });
  }
  // The body without `database`, as the cell takes it. A body nested too deep to write again
  // (JSON.stringify overflows the stack) is one the cell refuses: it is passed to it as it came.
  let payload: string;
  try {
    payload = JSON.stringify(rest);
  } catch {
    return sendInjected(res, await inject(cells.names[0]!, raw));
  }
  const tenant = fields.id;
  if (!(await placement.of(tenant))) await adoptIfHeld(cells, placement, tenant);
  let answer: LightMyRequestResponse | undefined;
  const placed = await placement.place(tenant, database, cells.names, async (name) => {
    answer = await inject(name, payload);
    return answer.statusCode >= 200 && answer.statusCode < 300;
  });
  const ok = answer!.statusCode >= 200 && answer!.statusCode < 300;
  return sendInjected(res, answer!, ok ? (b) => ({ ...b, database: placed }) : undefined);
};
