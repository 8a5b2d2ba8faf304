import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { expect } from 'vitest';
import { eventRegistry } from '../../domain/events/registry.ts';
import type { TestService } from './service.ts';

/**
 * `n` plugin installs written straight into a tenant's stream in one append (valid MACs):
 * g0 … g(n-1), generation 1000 + i. More than a snapshot interval, without n requests.
 */
export const growTenant = async (svc: TestService, tenant: string, n: number) => {
  const stream = `tenant:${tenant}`;
  const head = await svc.store.readStream(stream);
  const events = Array.from({ length: n }, (_, i) => ({
    event_id: randomUUID(),
    ...eventRegistry.encode({
      type: 'PluginInstalled',
      data: { tenant, name: `g${i}`, install_gen: 1000 + i, scopes: [], functions: ['f'], agents: ['a'], startup: null, installed_ms: 1 },
    }),
    metadata: { tenant, causation_id: null, correlation_id: null },
  }));
  expect(E.isRight(await svc.store.append(stream, events, head.at(-1)!.revision))).toBe(true);
};
