import * as t from 'io-ts';
import * as E from 'fp-ts/lib/Either.js';
import { PathReporter } from 'io-ts/lib/PathReporter.js';

/**
 * One released event type. Released shapes are never edited: a new shape bumps `version`
 * and adds an upcaster from the previous version, so old log entries still decode.
 */
export interface EventSchema<T extends string, C extends t.Mixed> {
  readonly type: T;
  readonly version: number;
  readonly codec: C;
  /** upcasters[v] lifts data written at schema version v to version v + 1. */
  readonly upcasters?: Readonly<Record<number, (data: unknown) => unknown>>;
}

/** A codec that also admits null. */
export const nullable = <C extends t.Mixed>(c: C) => t.union([c, t.null]);

export const defineEvent = <T extends string, C extends t.Mixed>(
  type: T,
  version: number,
  codec: C,
  upcasters?: Readonly<Record<number, (data: unknown) => unknown>>,
): EventSchema<T, C> => ({ type, version, codec, ...(upcasters ? { upcasters } : {}) });

export type EventOf<S> = S extends EventSchema<infer T, infer C> ? { readonly type: T; readonly data: t.TypeOf<C> } : never;

export interface Encoded {
  readonly type: string;
  readonly schema_version: number;
  readonly data: unknown;
}

export interface Registry<Ev extends { type: string; data: unknown }> {
  readonly types: readonly string[];
  encode(event: Ev): Encoded;
  decode(type: string, schemaVersion: number, data: unknown): E.Either<string, Ev>;
}

export const makeRegistry = <Ev extends { type: string; data: unknown }>(schemas: readonly EventSchema<string, t.Mixed>[]): Registry<Ev> => {
  const byType = new Map(schemas.map((s) => [s.type, s]));
  return {
    types: schemas.map((s) => s.type),
    encode(event) {
      const schema = byType.get(event.type);
      if (!schema) throw new TypeError(`unregistered event type ${event.type}`);
      return { type: event.type, schema_version: schema.version, data: schema.codec.encode(event.data) };
    },
    decode(type, schemaVersion, data) {
      const schema = byType.get(type);
      if (!schema) return E.left(`unknown event type ${type}`);
      if (schemaVersion > schema.version) return E.left(`${type} v${schemaVersion} is newer than this build (v${schema.version})`);
      let lifted = data;
      for (let v = schemaVersion; v < schema.version; v++) {
        const up = schema.upcasters?.[v];
        if (!up) return E.left(`${type}: no upcaster from v${v}`);
        lifted = up(lifted);
      }
      const decoded = schema.codec.decode(lifted);
      if (E.isLeft(decoded)) return E.left(`${type} v${schemaVersion}: ${PathReporter.report(decoded).join('; ')}`);
      return E.right({ type, data: decoded.right } as Ev);
    },
  };
};
