import { z } from 'zod';

/** 2026-12-01, 2026-12-01T10:00, 2026-12-01T10:00:00.5Z, 2026-12-01T10:00:00+02:00. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A time as milliseconds since the epoch, or ISO 8601 without an offset read as UTC (never the server's zone). */
export const parseTime = (text: string): number | null => {
  if (/^(0|[1-9][0-9]{0,15})$/.test(text)) return Number(text);
  if (!ISO_8601.test(text)) return null;
  const utc = text.length === 10 || /(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
  const ms = Date.parse(utc);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
};

/** A query-string time: milliseconds or ISO 8601; anything else is refused, naming both forms. */
export const TimeParam = z
  .string()
  .transform((text, ctx) => {
    const ms = parseTime(text);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: 'a time is milliseconds since 1970 (1764547200000) or ISO 8601 (2026-12-01 or 2026-12-01T10:00:00Z)' });
      return z.NEVER;
    }
    return ms;
  })
  .meta({ description: 'milliseconds since 1970, or an ISO 8601 date or date-time (UTC unless it gives an offset)' });
