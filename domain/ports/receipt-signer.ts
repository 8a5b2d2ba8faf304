/**
 * Signs receipts (SPEC §6): the object with a `signature` field added over its canonical
 * JSON. Handlers sign through this port so the audit key never leaves its adapter.
 */
export interface ReceiptSigner {
  sign<T extends Record<string, unknown>>(body: T): T & { signature: string };
}
