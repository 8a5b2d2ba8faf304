/** A file's reference (SPEC §13): its plaintext SHA-256, as tools pass it. */
export const FILE_REF = /^oz0-file:sha256:([0-9a-f]{64})$/;

export const fileRef = (sha256: string): string => `oz0-file:sha256:${sha256}`;

/** The digest a reference names, or null when it is not one. */
export const shaOfRef = (ref: string): string | null => FILE_REF.exec(ref)?.[1] ?? null;

/** At most 32 MiB per file. */
export const MAX_FILE_BYTES = 32 << 20;

/** A job tree is named by its root job: the job of its envelope's first block. */
export const treeOf = (chain: readonly { readonly block: { readonly job: string } }[], job: string): string => chain[0]?.block.job ?? job;
