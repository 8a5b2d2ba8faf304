import { z } from 'zod';

/** 2026-12-01, 2026-12-01T10:00, 2026-12-01T10:00:00.5Z, 2026-12-01T10:00:00+02:00; from 1970 on, each field within its range. */
const ISO_8601 =
  /^(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,9})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?)?$/;
const MILLISECONDS = /^(0|[1-9][0-9]{0,15})$/;
/** Either form, as one pattern (the document's). */
export const TIME = new RegExp(`${MILLISECONDS.source}|${ISO_8601.source}`);

/** A time as milliseconds since the epoch, or ISO 8601 without an offset read as UTC (never the server's zone). */
export const parseTime = (text: string): number | null => {
  if (MILLISECONDS.test(text)) return Number(text);
  if (!ISO_8601.test(text)) return null;
  const utc = text.length === 10 || /(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
  const ms = Date.parse(utc);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
};

/** A query-string time: milliseconds or ISO 8601; anything else is refused, naming both forms. */
export const TimeParam = z
  .string()
  .regex(TIME, 'a time is milliseconds since 1970 (1764547200000) or ISO 8601 (2026-12-01 or 2026-12-01T10:00:00Z)')
  .transform((text, ctx) => {
    const ms = parseTime(text);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: 'a time is milliseconds since 1970 (1764547200000) or ISO 8601 (2026-12-01 or 2026-12-01T10:00:00Z)' });
      return z.NEVER;
    }
    return ms;
  })
  .meta({ description: 'milliseconds since 1970, or an ISO 8601 date or date-time (UTC unless it gives an offset)' });
