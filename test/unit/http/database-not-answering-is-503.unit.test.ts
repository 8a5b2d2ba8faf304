import type { FastifyError } from 'fastify';
import { describe, expect, it } from 'vitest';
import { refusalOfError } from '../../../adapters/http/errors.ts';

const fault = (message: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(message), fields) as unknown as FastifyError;

/** What node-postgres, its pool and the network raise when the database is gone, each answered 503 `unavailable`. */
describe('an error of a database that does not answer', () => {
  it.each([
    ['a refused connection', fault('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' })],
    ['a refused connection to every address', new AggregateError([fault('a', { code: 'ECONNREFUSED' })], 'connect failed')],
    ['a reset connection', fault('read ECONNRESET', { code: 'ECONNRESET' })],
    ['the server shutting down (57P01 admin_shutdown)', fault('terminating connection due to administrator command', { code: '57P01' })],
    ['the server starting or stopping (57P03)', fault('the database system is shutting down', { code: '57P03' })],
    ['a connection exception (class 08)', fault('connection failure', { code: '08006' })],
    ['a connection cut mid-query', fault('Connection terminated unexpectedly')],
    ['a pool that cannot connect in time', fault('timeout exceeded when trying to connect')],
    ['a client that lost its connection', fault('Client has encountered a connection error and is not queryable')],
    ['the cause of a wrapping error', fault('append failed', { cause: fault('x', { code: '57P01' }) })],
  ])('%s is 503 unavailable', (_what, error) => {
    expect(refusalOfError(error as FastifyError)).toEqual({ status: 503, body: { error: 'unavailable', reason: 'the database does not answer' } });
  });

  it.each([
    ['a bug', fault("Cannot read properties of undefined (reading 'x')")],
    ['a constraint the database refused', fault('duplicate key value violates unique constraint', { code: '23505' })],
    ['a statement the database could not run', fault('syntax error', { code: '42601' })],
  ])('%s stays 500 internal', (_what, error) => {
    expect(refusalOfError(error)).toEqual({ status: 500, body: { error: 'internal' } });
  });
});
