import { callsProjection } from './calls.ts';
import { jobsProjection } from './jobs.ts';
import type { Projection } from './projection.ts';
import { tenantsProjection } from './tenants.ts';

export const allProjections: readonly Projection[] = [tenantsProjection, jobsProjection, callsProjection];

export const projectionNamed = (name: string): Projection | undefined => allProjections.find((p) => p.name === name);
