import type { FastifyRequest } from 'fastify';

/**
 * What the records API's gate learnt before the body was read: the job's purpose (which
 * every answer carries, including 413 and 415 answered by the body parser) and, once the
 * ticket, the fence and the request count passed, the call context and request index.
 */
export interface Admission<A> {
  readonly purpose: string;
  readonly admitted?: A;
}

const admissions = new WeakMap<FastifyRequest, Admission<unknown>>();

export const admit = <A>(req: FastifyRequest, admission: Admission<A>) => void admissions.set(req, admission);
export const admissionOf = <A>(req: FastifyRequest): Admission<A> | undefined => admissions.get(req) as Admission<A> | undefined;
