import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { BLOB_CHUNK_BYTES, type BlobKey, type BlobStore, type OpenedBlob } from '../../domain/ports/blob-store.ts';
import type { SealContext, Sealer } from '../../domain/ports/sealer.ts';
import type { Sealed } from '../../domain/records/events.ts';
import { aesGcmOpen, aesGcmSeal } from '../keys/crypto.ts';

/**
 * The file's data key is sealed through the keystore as if it were the body of a record of a
 * pseudo-plugin no plugin can be named (`~files`), keyed by tree and digest: one data key per
 * file and tree, wrapped by the tenant key or the data subject's key, and shredded with it.
 */
const keyContext = (k: BlobKey, dataSubject: string | null): SealContext => ({
  tenant: k.tenant,
  plugin: '~files',
  scope: `tree:${k.tree}`,
  key: k.sha256,
  version: 0,
  data_subject: dataSubject,
});
const chunkAad = (k: BlobKey, idx: number) => ['custodian', 'file', k.tenant, k.tree, k.sha256, String(idx)].join('\n');

export const postgresBlobStore = async (pool: pg.Pool, sealer: Sealer): Promise<BlobStore> => {
  const where = 'tenant = $1 AND tree = $2 AND sha256 = $3';
  const params = (k: BlobKey) => [k.tenant, k.tree, k.sha256];

  return {
    async put(k, bytes, dataSubject, now) {
      const renewed = await pool.query(`UPDATE custodian_blobs SET stored_ms = greatest(stored_ms, $4) WHERE ${where}`, [...params(k), now]);
      if ((renewed.rowCount ?? 0) > 0) return { size: bytes.length, renewed: true };
      const fileKey = randomBytes(32);
      const sealedKey = await sealer.seal(keyContext(k, dataSubject), 'body', fileKey.toString('base64'));
      const count = Math.max(1, Math.ceil(bytes.length / BLOB_CHUNK_BYTES));
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // One writer per file and tree: identical uploads at once (a retried tool call) wait
        // here, and each after the first finds the file stored and only renews it.
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [['custodian-blob', ...params(k)].join('\n')]);
        const again = await client.query(`UPDATE custodian_blobs SET stored_ms = greatest(stored_ms, $4) WHERE ${where}`, [...params(k), now]);
        if ((again.rowCount ?? 0) > 0) {
          await client.query('COMMIT');
          return { size: bytes.length, renewed: true };
        }
        // Chunks first, one statement each; the file row last, so a file is seen only whole.
        await client.query(`DELETE FROM custodian_blob_chunks WHERE ${where}`, params(k));
        for (let i = 0; i < count; i++) {
          const plain = Buffer.from(bytes.buffer, bytes.byteOffset + i * BLOB_CHUNK_BYTES, Math.min(BLOB_CHUNK_BYTES, bytes.length - i * BLOB_CHUNK_BYTES));
          const { nonce, ciphertext } = aesGcmSeal(fileKey, plain, chunkAad(k, i));
          await client.query('INSERT INTO custodian_blob_chunks (tenant, tree, sha256, idx, bytes) VALUES ($1, $2, $3, $4, $5)', [
            ...params(k),
            i,
            Buffer.concat([nonce, ciphertext]),
          ]);
        }
        await client.query(
          `INSERT INTO custodian_blobs (tenant, tree, sha256, size, chunks, file_key, data_subject, stored_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [...params(k), bytes.length, count, JSON.stringify(sealedKey), dataSubject, now],
        );
        await client.query('COMMIT');
        return { size: bytes.length, renewed: false };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },

    async holds(tenant, tree) {
      const { rows } = await pool.query('SELECT 1 FROM custodian_blobs WHERE tenant = $1 AND tree = $2 LIMIT 1', [tenant, tree]);
      return rows.length > 0;
    },

    async holders(tenant, sha256) {
      const { rows } = await pool.query<{ tree: string; data_subject: string | null }>(
        'SELECT tree, data_subject FROM custodian_blobs WHERE tenant = $1 AND sha256 = $2 ORDER BY stored_ms DESC, tree',
        [tenant, sha256],
      );
      return rows;
    },

    async list(tenant) {
      const { rows } = await pool.query<{ tree: string; sha256: string; stored_ms: number; data_subject: string | null }>(
        'SELECT tree, sha256, stored_ms::float8 AS stored_ms, data_subject FROM custodian_blobs WHERE tenant = $1 ORDER BY tree, sha256',
        [tenant],
      );
      return rows;
    },

    async remove(k, storedBy) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // The row first: a file is never seen without all its chunks. A store that renewed it
        // since the decision keeps it (its own FileStored follows and stores it again).
        const gone = await client.query(`DELETE FROM custodian_blobs WHERE ${where} AND stored_ms <= $4`, [...params(k), storedBy]);
        if ((gone.rowCount ?? 0) === 0) {
          await client.query('ROLLBACK');
          return false;
        }
        await client.query(`DELETE FROM custodian_blob_chunks WHERE ${where}`, params(k));
        await client.query('COMMIT');
        return true;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },

    async open(k): Promise<OpenedBlob | null> {
      const { rows } = await pool.query<{ size: string; chunks: number; file_key: Sealed; data_subject: string | null }>(
        `SELECT size, chunks, file_key, data_subject FROM custodian_blobs WHERE ${where}`,
        params(k),
      );
      const row = rows[0];
      if (!row) return null;
      const opened = await sealer.open(keyContext(k, row.data_subject), 'body', row.file_key);
      if (opened === null) return null;
      const fileKey = Buffer.from(opened, 'base64');
      return {
        size: Number(row.size),
        async *chunks() {
          for (let i = 0; i < row.chunks; i++) {
            const r = await pool.query<{ bytes: Buffer }>(`SELECT bytes FROM custodian_blob_chunks WHERE ${where} AND idx = $4`, [...params(k), i]);
            const sealed = r.rows[0]?.bytes;
            if (!sealed) throw new Error(`file ${k.sha256}: chunk ${i} is missing`);
            yield aesGcmOpen(fileKey, sealed.subarray(0, 12), sealed.subarray(12), chunkAad(k, i));
          }
        },
      };
    },
  };
};
