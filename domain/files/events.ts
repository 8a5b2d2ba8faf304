import * as t from 'io-ts';
import { defineEvent, nullable, type EventOf } from '../events/schema.ts';

/**
 * A job tree stored a file (SPEC §13): its digest and size, never its bytes.
 * v2: the optional `labels` the storing job held, which a reader joins (absent: none).
 */
export const FileStored = defineEvent(
  'FileStored',
  2,
  t.intersection([
    t.type({
      tenant: t.string,
      tree: t.string,
      job: t.string,
      run: t.number,
      call: t.string,
      sha256: t.string,
      size: t.number,
      data_subject: nullable(t.string),
      stored_ms: t.number,
    }),
    t.partial({ labels: t.array(t.string) }),
  ]),
  { 1: (data: unknown) => data },
);

export const fileEventSchemas = [FileStored] as const;
export type FileEvent = EventOf<typeof FileStored>;
