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

const HandedFile = t.type({
  sha256: t.string,
  size: t.number,
  /** The tree it was handed from, and the labels it carried there (the receiving tree keeps them). */
  from_tree: t.string,
  labels: t.array(t.string),
  /** Whose key seals the receiving tree's copy: the source's data subject, else the receiving job's. */
  data_subject: nullable(t.string),
});

/**
 * An admin start handed files another tree stored to the new job's tree (SPEC §13): one event
 * for the start, naming every file; audited as `files_handed`. A handing renews the keep.
 */
export const FilesHanded = defineEvent(
  'FilesHanded',
  1,
  t.type({
    tenant: t.string,
    tree: t.string,
    job: t.string,
    run: t.number,
    files: t.array(HandedFile),
    data_subject: nullable(t.string),
    handed_ms: t.number,
  }),
);

/** A file left its tree (SPEC §13): its keep ran out, or its data subject was erased. Never the bytes. */
export const FileRemoved = defineEvent(
  'FileRemoved',
  1,
  t.type({ tenant: t.string, tree: t.string, sha256: t.string, reason: t.keyof({ retention: null, erasure: null }), removed_ms: t.number }),
);

export const fileEventSchemas = [FileStored, FilesHanded, FileRemoved] as const;
export type FileEvent = EventOf<typeof FileStored> | EventOf<typeof FilesHanded> | EventOf<typeof FileRemoved>;
