import Fastify from 'fastify';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { answer } from '../../../adapters/http/reply.ts';
import type { ProjectionRunner } from '../../../projections/runner.ts';

/** A runner whose read models reach (or never reach) the position asked for. */
const runnerThat = (reaches: boolean): ProjectionRunner & { asked: number[] } => {
  const asked: number[] = [];
  return {
    asked,
    start: () => undefined,
    stop: async () => undefined,
    waitFor: async (position) => {
      asked.push(position);
      return reaches;
    },
    catchUp: async () => undefined,
    checkpoints: () => ({}),
  };
};

const serve = async (runner: ProjectionRunner, position: number | null) => {
  const app = Fastify();
  app.post('/x', (_req, reply) => answer(reply, runner, E.right({ position, id: 'a' }), (v) => ({ id: v.id }), 201));
  const res = await app.inject({ method: 'POST', url: '/x' });
  await app.close();
  return { status: res.statusCode, body: res.json() as unknown };
};

describe('a command answer and the read models it promises', () => {
  it('given the models hold the events, when the answer leaves, then it is the success', async () => {
    const runner = runnerThat(true);
    expect(await serve(runner, 42)).toEqual({ status: 201, body: { id: 'a' } });
    expect(runner.asked).toEqual([42]);
  });

  it('given the models do not reach the events in time, when the answer leaves, then it is a 503 error, not a success', async () => {
    const runner = runnerThat(false);
    const { status, body } = await serve(runner, 42);
    expect(status).toBe(503);
    expect(body).toMatchObject({ error: 'unavailable', position: 42 });
    expect(runner.asked).toEqual([42]);
  });

  it('given nothing was appended, when the answer leaves, then it waits for nothing', async () => {
    const runner = runnerThat(false);
    expect(await serve(runner, null)).toEqual({ status: 201, body: { id: 'a' } });
    expect(runner.asked).toEqual([]);
  });
});
