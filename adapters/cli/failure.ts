/**
 * What a command cannot do, for a reason the user can fix: its message is the one line the CLI
 * prints (what is wrong, then what to do), and `code` the exit code.
 */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message);
  }
}

/** Bytes from the service or a file, made safe for one terminal line: no control characters, bounded. */
export const oneLine = (text: string, max = 300): string => {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

/**
 * The last word on any error a command lets through: one line on stderr and a non-zero exit,
 * never a stack (CUSTODIAN_DEBUG=1 prints it, for a bug report).
 */
export const exitWithOneLine = (error: unknown): never => {
  const failure = error instanceof CliFailure ? error : undefined;
  const message = failure ? failure.message : `${oneLine(error instanceof Error ? error.message : String(error))}`;
  process.stderr.write(`custodian: ${message}\n`);
  if (process.env.CUSTODIAN_DEBUG === '1' && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exit(failure?.code ?? 1);
};

/** Codes of a database that cannot be reached or will not let this user in (network, then PostgreSQL's). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', '28P01', '28000', '3D000']);

/**
 * A failure to reach the PostgreSQL that DATABASE_URL names, as the one line to print; other
 * errors pass through unchanged.
 */
export const databaseFailure = (error: unknown): unknown => {
  const code = (error as { code?: unknown } | null)?.code;
  if (!process.env.DATABASE_URL || typeof code !== 'string' || !UNREACHABLE.has(code)) return error;
  const why = oneLine(error instanceof Error ? error.message : String(error), 160);
  return new CliFailure(`cannot use the PostgreSQL DATABASE_URL names (${why}): check DATABASE_URL, or unset it to use the embedded server`);
};
