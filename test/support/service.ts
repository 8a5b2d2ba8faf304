import { randomBytes } from 'node:crypto';
import { startService, type Service } from '../../adapters/service.ts';
import { newAuditKey } from '../../adapters/keys/audit-key.ts';
import type { KeyObject } from 'node:crypto';
import type { NoteKey } from '../../domain/audit/note.ts';
import type { Witness } from '../../domain/audit/witness-protocol.ts';
import { freshDatabase } from './database.ts';
import pino from 'pino';
import type { KafkaSettings } from '../../adapters/bus/kafka/client.ts';

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface TestService extends Service {
  readonly databaseUrl: string;
  readonly masterKey: Buffer;
  readonly auditKey: KeyObject;
  /** The last position written, visible or not yet: "writes nothing" compares it before and after. */
  lastPosition(): Promise<number>;
  /** fetch against the service with the admin key and JSON, answering status and parsed body. */
  admin(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/** A request with the admin key to the service at `url`: its status and its body (parsed when JSON). */
export const adminCall =
  (url: string) =>
  async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: the test will say so
    }
    return { status: res.status, body: parsed };
  };

/**
 * The whole service, in process, on a free port and its own fresh database — or, with
 * `shareWith`, a second process-like instance on the same database and keys.
 */
export const startTestService = async (
  options: {
    testClock?: boolean;
    shareWith?: TestService;
    kafka?: KafkaSettings;
    blocking?: boolean;
    /** Another deployment's copy of a key, or its own (default: a new one; shared with `shareWith`). */
    auditKey?: KeyObject;
    logOrigin?: string;
    /** Witness keys (their cosignatures are posted), or witnesses with the URL checkpoints are submitted to. */
    witnesses?: readonly (NoteKey | Witness)[];
    witnessQuorum?: number;
    witnessIntervalMs?: number;
  } = {},
): Promise<TestService> => {
  const db = options.shareWith ? null : await freshDatabase({ blocking: options.blocking ?? false });
  const databaseUrl = options.shareWith?.databaseUrl ?? db!.url;
  const masterKey = options.shareWith?.masterKey ?? randomBytes(32);
  const auditKey = options.auditKey ?? options.shareWith?.auditKey ?? newAuditKey();
  const service = await startService({
    databaseUrl,
    adminKey: ADMIN_KEY,
    masterKey,
    auditKey,
    ...(options.logOrigin !== undefined ? { logOrigin: options.logOrigin } : {}),
    ...(options.witnesses ? { witnesses: options.witnesses.map((w) => ('url' in w ? w : { key: w, url: null })) } : {}),
    ...(options.witnessQuorum !== undefined ? { witnessQuorum: options.witnessQuorum } : {}),
    ...(options.witnessIntervalMs !== undefined ? { witnessIntervalMs: options.witnessIntervalMs } : {}),
    port: 0,
    // CUSTODIAN_TEST_LOG=error (or another pino level) shows the instances' logs when a test is looked into.
    ...(process.env.CUSTODIAN_TEST_LOG ? { logger: pino({ level: process.env.CUSTODIAN_TEST_LOG }, pino.destination(2)) } : {}),
    testClock: options.testClock ?? false,
    ...(options.kafka ? { kafka: options.kafka } : {}),
  });
  return {
    ...service,
    databaseUrl,
    masterKey,
    auditKey,
    async lastPosition() {
      const { rows } = await service.pool.query<{ p: number | null }>('SELECT max(position) AS p FROM custodian_events');
      return Number(rows[0]?.p ?? 0);
    },
    admin: adminCall(service.url),
    async stop() {
      await service.close();
      await db?.drop();
    },
  };
};
