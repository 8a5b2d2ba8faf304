import type { FastifyRequest } from 'fastify';

/**
 * What the records API's gate learnt before the body was read: the job's purpose (which
 * every answer carries, including 413 and 415 answered by the body parser) and, once the
 * ticket, the fence and the request count passed, the call context and request index.
 */
export interface Admission<C> {
  readonly purpose: string;
  readonly admitted?: { readonly ctx: C; readonly index: number };
}

const admissions = new WeakMap<FastifyRequest, Admission<unknown>>();

export const admit = <C>(req: FastifyRequest, admission: Admission<C>) => void admissions.set(req, admission);
export const admissionOf = <C>(req: FastifyRequest): Admission<C> | undefined => admissions.get(req) as Admission<C> | undefined;
