/**
 * Every refusal of the records SDK: the HTTP `status` (0 when no answer came: the service could
 * not be reached, or the SDK refused the call before sending it), the refusal's `code` (`stale`,
 * `not_found`, `invalid`, `full`, `forgotten` …), its other `fields` (`field`, `reason`,
 * `what` …) and a `message` that says what to change (`records: <what>: <change>`).
 */
export class RecordsError extends Error {
  override readonly name = 'RecordsError';
  readonly status: number;
  readonly code: string;
  readonly fields: Readonly<Record<string, unknown>>;

  constructor(status: number, code: string, fields: Readonly<Record<string, unknown>>, message: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

/** Throws a refusal the SDK makes itself, before any request: no status, as the service never answered. */
export const refuse = (code: string, message: string, fields: Readonly<Record<string, unknown>> = {}): never => {
  throw new RecordsError(0, code, fields, message);
};
