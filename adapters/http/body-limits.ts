import { MAX_BODY_BYTES } from '../../domain/records/rules.ts';

/**
 * How much of a request body each kind of route reads before refusing it (413). The
 * records API takes a record body of at most MAX_BODY_BYTES serialized; its envelope and
 * JSON escaping (a character may take six bytes as \uXXXX) fit well within four times that.
 */
export const MAX_RECORDS_REQUEST_BYTES = 4 * MAX_BODY_BYTES;
/** Admin JSON: settings, plugin installs, revocation batches. */
export const MAX_ADMIN_BODY_BYTES = 1 << 20;
/** An export loaded back (`application/x-ndjson`), only ever read after the admin key passed. */
export const MAX_IMPORT_BYTES = 256 << 20;
