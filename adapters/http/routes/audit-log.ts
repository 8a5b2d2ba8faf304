import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { WitnessCommands } from '../../../commands/audit-witnesses.ts';
import { bundleOf, isFull, MAX_BUNDLED_ENTRY, parseTilePath, tileSpan, type TilePath } from '../../../domain/audit/tiles.ts';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import { invalid, refusal } from '../../../domain/shared/refusal.ts';
import { auditSize, readHashes, readLines } from '../../../queries/audit-tiles.ts';
import { auditHashesPublic, tenantExists } from '../../../queries/tenants.ts';
import { okAs, refusals } from '../responses.ts';
import { AUDIT_HASHES, AUDITOR } from '../route-auth.ts';
import { TenantParams } from '../schemas.ts';

/**
 * The tenant's audit log as C2SP tlog-tiles (c2sp.org/tlog-tiles) under
 * `/v1/tenants/{t}/audit/log/`: the checkpoint note, hash tiles and entry bundles, as
 * transparency-dev/tessera's client and x/mod's tile reader fetch them. Tiles are read from
 * the stored tree nodes (a tile is a range of one level's rows), never recomputed.
 */

const hashSecurity: Record<string, string[]>[] = [{ admin: [] }, { auditor: [] }, {}];
const entrySecurity: Record<string, string[]>[] = [{ admin: [] }, { auditor: [] }];

/** The rest of a tile path (after `tile/<L>/` or `tile/entries/`): N in groups, and `.p/<W>` for a partial tile. */
const rest = z.string().max(64).meta({ description: 'N in three-digit groups (x001/x234/067), then .p/<W> for a partial tile of width W (1-255)' });
const HashTileParams = TenantParams.extend({
  l: z.string().max(8).meta({ description: 'the tile level, 0-63' }),
  '*': rest,
});
const BundleParams = TenantParams.extend({ '*': rest });

const YEAR = 'max-age=31536000, immutable';
/** The checkpoint and partial tiles change as the log grows: caches keep them a moment only. */
const SHORT = 'max-age=5';

/**
 * `public` only where no key is needed: a shared cache may never hand out what was served
 * under a key (RFC 9111 §3.5), so credentialed answers are `private` with the same lifetimes.
 */
const cacheControl = (open: boolean, full: boolean) => `${open ? 'public' : 'private'}, ${full ? YEAR : SHORT}`;

const sendTile = (reply: FastifyReply, body: Buffer, open: boolean, full: boolean) =>
  reply.header('content-type', 'application/octet-stream').header('cache-control', cacheControl(open, full)).send(body);

const beyond = (tile: TilePath, size: number) =>
  refusal('not_found', {
    what: 'tile',
    reason: `the log holds ${size} entries, which do not reach this ${tile.width === null ? 'full tile' : `partial tile of width ${tile.width}`}: ask for a tile the checkpoint's size covers`,
  });

export const auditLogRoutes = (app: FastifyInstance, deps: { db: ReadModelStore; witnesses: WitnessCommands }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const notFound = (reply: FastifyReply) => reply.code(404).send(refusal('not_found', { what: 'tenant' }));

  r.get(
    '/v1/tenants/:t/audit/log/checkpoint',
    {
      config: AUDIT_HASHES,
      schema: {
        params: TenantParams,
        security: hashSecurity,
        tags: ['audit'],
        summary:
          'tlog-tiles: the newest checkpoint the witness quorum cosigned (with no witness URL configured, the newest the log signed), a C2SP signed note with its cosignatures (no key when the tenant set audit_public "hashes")',
        response: { ...okAs('text/plain', 'the signed checkpoint note'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      if (!(await tenantExists(deps.db, req.params.t))) return notFound(reply);
      // A log publishes only what its witnesses saw (as Tessera does with a witness policy).
      const cp = await deps.witnesses.newestWitnessed(req.params.t);
      if (!cp)
        return reply.code(404).send(
          refusal('not_found', {
            what: 'witnessed checkpoint',
            reason: 'no checkpoint of this log has been cosigned by the witness quorum yet: GET …/audit/checkpoint serves the newest the log signed',
          }),
        );
      const open = await auditHashesPublic(deps.db, req.params.t);
      return reply.header('content-type', 'text/plain; charset=utf-8').header('cache-control', cacheControl(open, false)).send(cp.note);
    },
  );

  r.get(
    '/v1/tenants/:t/audit/log/tile/:l/*',
    {
      config: AUDIT_HASHES,
      schema: {
        params: HashTileParams,
        security: hashSecurity,
        tags: ['audit'],
        summary: 'tlog-tiles: a hash tile, tile/<L>/<N>[.p/<W>] — 32-byte hashes of tree level 8·L (no key when the tenant set audit_public "hashes")',
        response: { ...okAs('application/octet-stream', 'W (or 256) hashes of 32 bytes'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      const { t, l } = req.params;
      if (!(await tenantExists(deps.db, t))) return notFound(reply);
      const tile = parseTilePath(`${l}/${req.params['*']}`);
      if ('problem' in tile) return reply.code(400).send(invalid('path', tile.problem));
      // The router sends `tile/entries/…` to the bundle route; a level spelled otherwise is not one.
      if (tile.kind !== 'hashes') return reply.code(400).send(invalid('path', 'entry bundles are under tile/entries/'));
      const size = await auditSize(deps.db, t);
      const span = tileSpan(tile, size);
      if (!span) return reply.code(404).send(beyond(tile, size));
      const hashes = await readHashes(deps.db, t, span.treeLevel, span.from, span.count);
      if (!hashes) return reply.code(404).send(beyond(tile, size));
      return sendTile(reply, hashes, await auditHashesPublic(deps.db, t), isFull(tile));
    },
  );

  r.get(
    '/v1/tenants/:t/audit/log/tile/entries/*',
    {
      config: AUDITOR,
      schema: {
        params: BundleParams,
        security: entrySecurity,
        tags: ['audit'],
        summary: "tlog-tiles: an entry bundle, tile/entries/<N>[.p/<W>] — each entry's line after its big-endian uint16 length",
        response: { ...okAs('application/octet-stream', 'W (or 256) length-prefixed entries'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      const { t } = req.params;
      if (!(await tenantExists(deps.db, t))) return notFound(reply);
      const tile = parseTilePath(`entries/${req.params['*']}`);
      if ('problem' in tile) return reply.code(400).send(invalid('path', tile.problem));
      const size = await auditSize(deps.db, t);
      const span = tileSpan(tile, size);
      if (!span) return reply.code(404).send(beyond(tile, size));
      const lines = await readLines(deps.db, t, span.from, span.count);
      if (!lines) return reply.code(404).send(beyond(tile, size));
      const entries = lines.map((line) => Buffer.from(line));
      const long = entries.findIndex((e) => e.length > MAX_BUNDLED_ENTRY);
      // A line too long for its uint16 prefix cannot be bundled; read it through the JSON Lines stream.
      if (long >= 0)
        return reply.code(404).send(
          refusal('not_found', {
            what: 'entry bundle',
            reason: `entry ${span.from + long} is longer than the ${MAX_BUNDLED_ENTRY} bytes a bundle holds: read it with GET /v1/tenants/${t}/audit?from_seq=${span.from + long}&limit=1`,
          }),
        );
      return sendTile(reply, bundleOf(entries), false, isFull(tile));
    },
  );
};
