/**
 * The pause before a command is decided again after its append met a newer revision. Commands
 * of one instance already queue per stream, so a conflict is another instance's write: the
 * first retries go at once (a pause only hands the stream to the writer that just won, whose
 * next command is already queued), later ones after a short jittered pause.
 */
export const backoff = (attempt: number) =>
  attempt < 8 ? Promise.resolve() : new Promise((r) => setTimeout(r, Math.random() * Math.min(8, 2 ** (attempt - 7))));
