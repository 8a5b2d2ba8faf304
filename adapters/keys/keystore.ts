import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Sealed } from '../../domain/records/events.ts';
import type { SealContext, Sealer, SealedField } from '../../domain/ports/sealer.ts';
import { inTransaction } from '../postgres/pool.ts';
import { SHRED_RECORD_KEYS } from '../../queries/key-shred.ts';
import type { AppendRow, KeyWork, KeyWorkEnd } from '../../domain/ports/append-rows.ts';
import { aesGcmOpen, aesGcmSeal, deriveKey, hmacHex, unwrapKey, wrapKey } from './crypto.ts';
import { freshBytes } from './fresh-bytes.ts';

/** A bounded cache of unwrapped data keys: least recently used goes first. */
class Lru<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(id: string) {
    const k = this.entries.get(id);
    if (k) {
      this.entries.delete(id);
      this.entries.set(id, k);
    }
    return k;
  }
  set(id: string, key: V) {
    this.entries.set(id, key);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
  delete(id: string) {
    this.entries.delete(id);
  }
  get size() {
    return this.entries.size;
  }
}

/** A record's key row for one owner. */
const DATA_KEY_OF_RECORD =
  'SELECT key_id, wrapped FROM custodian_data_keys WHERE tenant = $1 AND plugin = $2 AND scope = $3 AND record_key = $4 AND owner = $5';
/**
 * Runs a transaction again when PostgreSQL chose it as a deadlock's victim (a put's batch may
 * hold a data key's row `FOR SHARE` while it waits for the subject key this one locked).
 */
const withDeadlockRetry = async <T>(work: () => Promise<T>): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt >= 5) throw error;
    }
  }
};

/** Rolls a subject's shred back: something of theirs is still kept (nothing may change). */
class SomethingLeft extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const aadOf = (c: SealContext, field: SealedField) => ['custodian', field, c.tenant, c.plugin, c.scope, c.key, String(c.version)].join('\n');
const ownerOf = (c: Pick<SealContext, 'data_subject'>) => (c.data_subject === null ? 'tenant' : `subject:${c.data_subject}`);

export interface Keystore extends Sealer {
  sealInWork: NonNullable<Sealer['sealInWork']>;
  endWork: NonNullable<Sealer['endWork']>;
  readonly cachedKeys: () => number;
  /** Deletes every data key of a record: all its versions, in every copy of the log, are gone. */
  shredRecord(tenant: string, plugin: string, scope: string, key: string): Promise<number>;
  /** Deletes a data subject's key and the data keys it wrapped, unless something of theirs is left (see `KeyShredder`). */
  shredSubject(tenant: string, subject: string, anyLeft: () => Promise<boolean>): Promise<number | null>;
  /** Deletes every data and subject key of a tenant (see `KeyShredder`). */
  shredTenant(tenant: string): Promise<number>;
  /** Rewrites the keystore tables so deleted keys leave no bytes behind in their files. */
  vacuum(): Promise<void>;
}

/**
 * The keystore: a mutable table beside the log, never in it. A data key per record and
 * owner, wrapped by the tenant key (HKDF from the master key) or, for a data subject's job,
 * by that subject's key, itself wrapped by the tenant key. Deleting a wrapped key shreds
 * everything sealed under it.
 */
export const postgresKeystore = async (pool: pg.Pool, masterKey: Buffer, cacheSize = 10_000): Promise<Keystore> => {
  const cache = new Lru<Buffer>(cacheSize);
  const tenantKeys = new Map<string, Buffer>();
  const tenantKek = (tenant: string) => {
    let k = tenantKeys.get(tenant);
    if (!k) tenantKeys.set(tenant, (k = deriveKey(masterKey, `tenant:${tenant}:kek`)));
    return k;
  };
  const dedupeKeys = new Map<string, Buffer>();

  const subjectKek = async (tenant: string, subject: string, create: boolean): Promise<Buffer | null> => {
    const aad = `subject\n${tenant}\n${subject}`;
    if (create) {
      const fresh = randomBytes(32);
      await pool.query('INSERT INTO custodian_subject_keys (tenant, subject, wrapped) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        tenant,
        subject,
        wrapKey(tenantKek(tenant), fresh, aad),
      ]);
    }
    const { rows } = await pool.query<{ wrapped: Buffer }>('SELECT wrapped FROM custodian_subject_keys WHERE tenant = $1 AND subject = $2', [tenant, subject]);
    return rows[0] ? unwrapKey(tenantKek(tenant), rows[0].wrapped, aad) : null;
  };

  const kekFor = (tenant: string, owner: string, create: boolean) =>
    owner === 'tenant' ? Promise.resolve(tenantKek(tenant)) : subjectKek(tenant, owner.slice('subject:'.length), create);

  /** The record's data key for this owner, made on first use; concurrent first uses agree. */
  const idsByRecord = new Lru<string>(cacheSize);
  const dataKeyFor = async (c: SealContext): Promise<{ id: string; key: Buffer }> => {
    const owner = ownerOf(c);
    const recordRef = [c.tenant, c.plugin, c.scope, c.key, owner].join('\n');
    const knownId = idsByRecord.get(recordRef);
    const known = knownId ? cache.get(knownId) : undefined;
    if (knownId && known) return { id: knownId, key: known };
    const kek = (await kekFor(c.tenant, owner, true))!;
    const id = randomUUID();
    // One round trip when the key is new; a second only when another writer made it first.
    const { rows: made } = await pool.query<{ key_id: string; wrapped: Buffer }>(
      `INSERT INTO custodian_data_keys (key_id, tenant, plugin, scope, record_key, owner, wrapped) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (tenant, plugin, scope, record_key, owner) DO NOTHING RETURNING key_id, wrapped`,
      [id, c.tenant, c.plugin, c.scope, c.key, owner, wrapKey(kek, freshBytes(32), `data\n${id}`)],
    );
    const rows =
      made.length > 0 ? made : (await pool.query<{ key_id: string; wrapped: Buffer }>(DATA_KEY_OF_RECORD, [c.tenant, c.plugin, c.scope, c.key, owner])).rows;
    const row = rows[0]!;
    idsByRecord.set(recordRef, row.key_id);
    const cached = cache.get(row.key_id);
    if (cached) return { id: row.key_id, key: cached };
    const key = unwrapKey(kek, row.wrapped, `data\n${row.key_id}`);
    cache.set(row.key_id, key);
    return { id: row.key_id, key };
  };

  /**
   * A put's key, chosen in its decision's key work (`KeyWork`), answered with the rows its
   * append commits, so that what the put's append commits always names a key that exists, and
   * a refused put writes no key of any kind:
   * - a key the record has (known here, or found): used, and locked `FOR SHARE` in the append's
   *   transaction — another instance may have shredded it since; then this instance forgets it
   *   (the work ends `row_taken`) and the put is sealed again;
   * - else a new key whose row is written in the append's transaction, after the append, and only
   *   if the key that wraps it is still the subject's (or the tenant's);
   * - a data subject with no key yet gets one the same way, written with the append.
   * A request admitted from the cache does not look for the record's key (its guard fails on a
   * row that conflicts, and the request, admitted again in full, looks then).
   * One key per record and subject under one work: a second seal answers the same key and rows.
   */
  interface InWork {
    readonly id: string;
    readonly key: Buffer;
    readonly made: boolean;
    readonly rows: readonly AppendRow[];
  }
  const works = new WeakMap<KeyWork, { records: Map<string, InWork>; subjects: Map<string, { kek: Buffer; rows: readonly AppendRow[]; wrapped: Buffer }> }>();
  const workOf = (work: KeyWork) => {
    let w = works.get(work);
    if (!w) works.set(work, (w = { records: new Map(), subjects: new Map() }));
    return w;
  };
  /** New keys of puts in progress, by id, until their work ends (see keyWithAppend). */
  const pinned = new Map<string, Buffer>();
  const keyWithAppend = async (work: KeyWork, c: SealContext): Promise<InWork> => {
    const owner = ownerOf(c);
    const recordRef = [c.tenant, c.plugin, c.scope, c.key, owner].join('\n');
    const { records } = workOf(work);
    const chosen = records.get(recordRef);
    if (chosen) return chosen;
    const live = (id: string, key: Buffer): InWork => {
      const used = { id, key, made: false, rows: [{ kind: 'data_key_used' as const, id, row: [id] }] };
      records.set(recordRef, used);
      return used;
    };
    const knownId = idsByRecord.get(recordRef);
    const known = knownId ? cache.get(knownId) : undefined;
    if (knownId && known) return live(knownId, known);
    if (!work.cached) {
      const { rows: found } = await pool.query<{ key_id: string; wrapped: Buffer }>(DATA_KEY_OF_RECORD, [c.tenant, c.plugin, c.scope, c.key, owner]);
      const row = found[0];
      const kek = row ? await kekFor(c.tenant, owner, false) : null;
      if (row && kek) {
        const key = cache.get(row.key_id) ?? unwrapKey(kek, row.wrapped, `data\n${row.key_id}`);
        cache.set(row.key_id, key);
        idsByRecord.set(recordRef, row.key_id);
        return live(row.key_id, key);
      }
    }
    const wrapping =
      owner === 'tenant' ? { kek: tenantKek(c.tenant), wrapped: null, rows: [] } : await subjectKeyInWork(work, c.tenant, owner.slice('subject:'.length));
    const id = randomUUID();
    const key = freshBytes(32);
    // Openable at once (the inline models open digests inside the append's transaction, where
    // no other connection sees the row yet): pinned, not only cached, until the put's work
    // ends, so no burst of other keys can evict it first. A fresh random id that only events of
    // that transaction name.
    cache.set(id, key);
    pinned.set(id, key);
    const made: InWork = {
      id,
      key,
      made: true,
      rows: [
        ...wrapping.rows,
        {
          kind: 'data_key_made',
          id,
          row: [id, c.tenant, c.plugin, c.scope, c.key, owner, wrapKey(wrapping.kek, key, `data\n${id}`), wrapping.wrapped],
        },
      ],
    };
    records.set(recordRef, made);
    return made;
  };

  /** The subject's key as it stands, or a new one made in this work (its row written with the append). */
  const subjectKeyInWork = async (work: KeyWork, tenant: string, subject: string) => {
    const { subjects } = workOf(work);
    const ref = `${tenant}\n${subject}`;
    const chosen = subjects.get(ref);
    if (chosen) return chosen;
    const aad = `subject\n${tenant}\n${subject}`;
    const { rows: found } = await pool.query<{ wrapped: Buffer }>('SELECT wrapped FROM custodian_subject_keys WHERE tenant = $1 AND subject = $2', [
      tenant,
      subject,
    ]);
    if (found[0]) {
      const known = { kek: unwrapKey(tenantKek(tenant), found[0].wrapped, aad), wrapped: found[0].wrapped, rows: [] };
      subjects.set(ref, known);
      return known;
    }
    const kek = randomBytes(32);
    const wrapped = wrapKey(tenantKek(tenant), kek, aad);
    const fresh = { kek, wrapped, rows: [{ kind: 'subject_key_made' as const, id: ref, row: [tenant, subject, wrapped] }] };
    subjects.set(ref, fresh);
    return fresh;
  };

  /**
   * A work ended: its new keys are no longer pinned; committed, they are the records' keys
   * from now on; a row taken, the keys it only used are forgotten (another instance may have
   * shredded them: the put, sealed again, looks them up).
   */
  const endWork = (work: KeyWork, end: KeyWorkEnd) => {
    const w = works.get(work);
    if (!w) return;
    works.delete(work);
    for (const [recordRef, r] of w.records) {
      if (r.made) {
        pinned.delete(r.id);
        if (end === 'committed') {
          idsByRecord.set(recordRef, r.id);
          cache.set(r.id, r.key);
        }
      } else if (end === 'row_taken') {
        idsByRecord.delete(recordRef);
        cache.delete(r.id);
      }
    }
  };

  const dataKeyById = async (id: string): Promise<Buffer | null> => {
    const cached = pinned.get(id) ?? cache.get(id);
    if (cached) return cached;
    const { rows } = await pool.query<{ tenant: string; owner: string; wrapped: Buffer }>(
      'SELECT tenant, owner, wrapped FROM custodian_data_keys WHERE key_id = $1',
      [id],
    );
    const row = rows[0];
    if (!row) return null;
    const kek = await kekFor(row.tenant, row.owner, false);
    if (!kek) return null;
    const key = unwrapKey(kek, row.wrapped, `data\n${id}`);
    cache.set(id, key);
    return key;
  };

  /**
   * Batched opening: the data keys of many sealed values in one SELECT (and one per data
   * subject whose key wraps some), unwrapped into the cache that `open` reads. Chunks stay
   * below the cache's size so a prefetched key is still there when it is opened.
   */
  const prefetch = async (sealed: readonly Sealed[]) => {
    // Anything not shaped like a key id is left to `open`, which reports it as it always has.
    // Keys this instance holds are asked for too: one another instance shredded must not be
    // opened from memory (it is dropped here, and `open` then finds it gone).
    const wanted = [...new Set(sealed.map((s) => s.k))].filter((id) => UUID.test(id) && !pinned.has(id));
    const chunk = Math.max(1, Math.min(5_000, Math.floor(cacheSize / 2)));
    for (let i = 0; i < wanted.length; i += chunk) {
      const ids = wanted.slice(i, i + chunk);
      const { rows } = await pool.query<{ key_id: string; tenant: string; owner: string; wrapped: Buffer }>(
        'SELECT key_id, tenant, owner, wrapped FROM custodian_data_keys WHERE key_id = ANY($1::uuid[])',
        [ids],
      );
      const found = new Set(rows.map((r) => r.key_id));
      for (const id of ids) if (!found.has(id)) cache.delete(id);
      const keks = new Map<string, Buffer | null>();
      for (const row of rows) {
        if (cache.get(row.key_id)) continue;
        const owner = `${row.tenant}\n${row.owner}`;
        if (!keks.has(owner)) keks.set(owner, await kekFor(row.tenant, row.owner, false));
        const kek = keks.get(owner);
        if (kek) cache.set(row.key_id, unwrapKey(kek, row.wrapped, `data\n${row.key_id}`));
      }
    }
  };

  const sealUnder = ({ id, key }: { id: string; key: Buffer }, c: SealContext, field: SealedField, plaintext: string): Sealed => {
    const { nonce, ciphertext } = aesGcmSeal(key, Buffer.from(plaintext, 'utf8'), aadOf(c, field));
    return { k: id, n: nonce.toString('base64'), c: ciphertext.toString('base64') };
  };

  return {
    prefetch,
    async seal(c, field, plaintext): Promise<Sealed> {
      return sealUnder(await dataKeyFor(c), c, field, plaintext);
    },
    async sealInWork(c, field, plaintext, work) {
      const chosen = await keyWithAppend(work, c);
      return { sealed: sealUnder(chosen, c, field, plaintext), rows: chosen.rows };
    },
    endWork,
    async open(c, field, sealed) {
      const key = await dataKeyById(sealed.k);
      if (!key) return null;
      return aesGcmOpen(key, Buffer.from(sealed.n, 'base64'), Buffer.from(sealed.c, 'base64'), aadOf(c, field)).toString('utf8');
    },
    dedupeDigest(tenant, text) {
      let k = dedupeKeys.get(tenant);
      if (!k) dedupeKeys.set(tenant, (k = deriveKey(masterKey, `tenant:${tenant}:dedupe`)));
      return hmacHex(k, text);
    },
    cachedKeys: () => cache.size,
    async shredRecord(tenant, plugin, scope, key) {
      const params = [tenant, plugin, scope, key];
      const rows = await inTransaction(pool, async (tx) => {
        await tx.query('SELECT 1 FROM custodian_data_keys WHERE tenant = $1 AND plugin = $2 AND scope = $3 AND record_key = $4 FOR UPDATE', params);
        return (await tx.query<{ key_id: string; owner: string }>(SHRED_RECORD_KEYS, params)).rows;
      });
      for (const r of rows) {
        cache.delete(r.key_id);
        idsByRecord.delete([tenant, plugin, scope, key, r.owner].join('\n'));
      }
      return rows.length;
    },
    async shredSubject(tenant, subject, anyLeft) {
      // Everything a put could seal under the subject is locked first, in the order puts take it
      // (the subject's data keys, then the subject key): their rows `FOR UPDATE`, and the subject
      // key's row even when the subject has none yet — made here, so a put making the subject's
      // first key waits on it. From then on no put can seal anything new of theirs, and every put
      // that did has committed, so `anyLeft` sees all there is. It found nothing: the subject key
      // goes, then every data key it wrapped. It found something: nothing is changed.
      const aad = `subject\n${tenant}\n${subject}`;
      const rows = await withDeadlockRetry(() =>
        inTransaction(pool, async (tx) => {
          await tx.query('SELECT 1 FROM custodian_data_keys WHERE tenant = $1 AND owner = $2 FOR UPDATE', [tenant, `subject:${subject}`]);
          await tx.query('INSERT INTO custodian_subject_keys (tenant, subject, wrapped) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
            tenant,
            subject,
            wrapKey(tenantKek(tenant), randomBytes(32), aad),
          ]);
          await tx.query('SELECT 1 FROM custodian_subject_keys WHERE tenant = $1 AND subject = $2 FOR UPDATE', [tenant, subject]);
          if (await anyLeft()) throw new SomethingLeft();
          await tx.query('DELETE FROM custodian_subject_keys WHERE tenant = $1 AND subject = $2', [tenant, subject]);
          return (
            await tx.query<{ key_id: string; plugin: string; scope: string; record_key: string; owner: string }>(
              'DELETE FROM custodian_data_keys WHERE tenant = $1 AND owner = $2 RETURNING key_id, plugin, scope, record_key, owner',
              [tenant, `subject:${subject}`],
            )
          ).rows;
        }),
      ).catch((error) => {
        if (error instanceof SomethingLeft) return null;
        throw error;
      });
      if (rows === null) return null;
      for (const r of rows) {
        cache.delete(r.key_id);
        idsByRecord.delete([tenant, r.plugin, r.scope, r.record_key, r.owner].join('\n'));
      }
      return rows.length;
    },
    async shredTenant(tenant) {
      // The data keys first, then the subject keys, in the order puts lock them.
      const { data, subjects } = await withDeadlockRetry(() =>
        inTransaction(pool, async (tx) => ({
          data: (
            await tx.query<{ key_id: string; plugin: string; scope: string; record_key: string; owner: string }>(
              'DELETE FROM custodian_data_keys WHERE tenant = $1 RETURNING key_id, plugin, scope, record_key, owner',
              [tenant],
            )
          ).rows,
          subjects: (await tx.query('DELETE FROM custodian_subject_keys WHERE tenant = $1', [tenant])).rowCount ?? 0,
        })),
      );
      for (const r of data) {
        cache.delete(r.key_id);
        idsByRecord.delete([tenant, r.plugin, r.scope, r.record_key, r.owner].join('\n'));
      }
      return data.length + subjects;
    },
    async vacuum() {
      await pool.query('VACUUM FULL custodian_data_keys, custodian_subject_keys');
    },
  };
};
