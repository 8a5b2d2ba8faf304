import { z } from 'zod';
import { VIEWS, type View } from '../../domain/fit/types.ts';

/** The three fit parameters of SPEC §13 as HTTP carries them (a query string's budget is text). */
export const FitParams = {
  view: z.enum(VIEWS as [View, ...View[]]).optional(),
  budget: z.coerce.number().int().min(0).max(1_000_000_000).optional(),
  query: z.string().min(1).max(500).optional(),
};
