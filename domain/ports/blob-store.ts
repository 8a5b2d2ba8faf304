/** Which file: a tenant's, stored by one job tree (named by its root job), by its plaintext SHA-256. */
export interface BlobKey {
  readonly tenant: string;
  readonly tree: string;
  readonly sha256: string;
}

/** A stored file opened for reading: its size and its bytes, chunk by chunk. */
export interface OpenedBlob {
  readonly size: number;
  chunks(): AsyncIterable<Uint8Array>;
}

/**
 * Files between tools (SPEC §13), sealed at rest: a data key per file and tree, wrapped by the
 * data subject's key when the tree has one, so erasing the subject makes the file unreadable.
 * Chunked: no file needs its whole size in one statement.
 */
export interface BlobStore {
  /** Stores the bytes (idempotent: storing the same file in the same tree again only renews it). */
  put(key: BlobKey, bytes: Uint8Array, dataSubject: string | null, now: number): Promise<{ size: number; renewed: boolean }>;
  /** The file, or null when this tree never stored it, it was removed, or its key was shredded. */
  open(key: BlobKey): Promise<OpenedBlob | null>;
  /** Whether the tree named by this root job still holds any file. */
  holds(tenant: string, tree: string): Promise<boolean>;
  /** The trees of a tenant that hold this file, the latest stored first, with whose key seals each. */
  holders(tenant: string, sha256: string): Promise<{ tree: string; data_subject: string | null }[]>;
  /** The tenant's files: candidates for retention and erasure (the files streams decide). */
  list(tenant: string): Promise<{ tree: string; sha256: string; stored_ms: number; data_subject: string | null }[]>;
  /**
   * Deletes the file's row and its sealed chunks unless the tree stored it again after
   * `storedBy` (then it answers false and keeps it); its key is shredded by the caller.
   */
  remove(key: BlobKey, storedBy: number): Promise<boolean>;
}

/** Chunks of at most this many bytes are sealed and stored one statement each. */
export const BLOB_CHUNK_BYTES = 1 << 20;
