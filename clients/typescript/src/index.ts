// `@custodian/sdk`: agent records for agent runtimes and tool authors, over a Custodian
// service's HTTP API. No dependency beyond node; the fitting library is `@custodian/sdk/fit`.
export { createRecords, type Records, type RecordsOptions } from './records.ts';
export { recordsClient } from './http.ts';
export { RecordsError } from './errors.ts';
export { plainValue } from './plain-value.ts';
export { RECORD_LIMITS } from './limits.ts';
export type { After, CollectionSpec, ExportedRecord, FitAsk, FittedQuery, Json, JsonObject, Page, RecordEntry, RecordsTransport } from './types.ts';
