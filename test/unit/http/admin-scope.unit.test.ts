import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { adminScope, authorise, PUBLIC } from '../../../adapters/http/route-auth.ts';

const KEY = 'the-admin-key';

const build = async () => {
  const app = Fastify();
  const reached: string[] = [];
  const auth: Record<string, unknown> = {};
  app.addHook('onRequest', authorise(KEY));
  await app.register(
    adminScope(KEY, (admin) => {
      admin.addHook('onRoute', (r) => void (auth[r.url] = r.config?.auth));
      admin.get('/admin', async () => reached.push('admin'));
      admin.register(async (nested) => void nested.post('/admin/nested', async () => reached.push('nested')));
    }),
  );
  app.get('/open', { config: PUBLIC }, async () => reached.push('open'));
  app.get('/undeclared', async () => reached.push('undeclared'));
  await app.ready();
  return { app, reached, auth };
};

describe('the admin scope', () => {
  it('refuses its routes, nested ones included, without the admin key, before the handler', async () => {
    const { app, reached } = await build();
    for (const [method, url] of [
      ['GET', '/admin'],
      ['POST', '/admin/nested'],
    ] as const) {
      for (const authorization of [undefined, 'Bearer wrong', `Bearer ${KEY}x`]) {
        const r = await app.inject({ method, url, headers: authorization ? { authorization } : {} });
        expect(r.statusCode, `${method} ${url} ${authorization}`).toBe(401);
        expect(r.json()).toMatchObject({ error: 'unauthorized' });
      }
    }
    expect(reached).toEqual([]);
    expect((await app.inject({ method: 'GET', url: '/admin', headers: { authorization: `Bearer ${KEY}` } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/admin/nested', headers: { authorization: `Bearer ${KEY}` } })).statusCode).toBe(200);
    expect(reached).toEqual(['admin', 'nested']);
    await app.close();
  });

  it('marks its routes admin without their declaring it; outside it, public is open and nothing declared is refused', async () => {
    const { app, reached, auth } = await build();
    expect(auth).toEqual({ '/admin': 'admin', '/admin/nested': 'admin' });
    expect((await app.inject({ method: 'GET', url: '/open' })).statusCode).toBe(200);
    const r = await app.inject({ method: 'GET', url: '/undeclared', headers: { authorization: `Bearer ${KEY}` } });
    expect(r.statusCode).toBe(403);
    expect(reached).toEqual(['open']);
    await app.close();
  });

  it('takes no route that declares another credential', async () => {
    const app = Fastify();
    await expect(app.register(adminScope(KEY, (admin) => void admin.get('/leak', { config: PUBLIC }, async () => 'x'))).ready()).rejects.toThrow(
      /admin routes only/,
    );
    await app.close();
  });

  it('an admin route declared outside the scope is still checked by the edge', async () => {
    const app = Fastify();
    app.addHook('onRequest', authorise(KEY));
    app.get('/declared', { config: { auth: 'admin' } }, async () => 'ok');
    expect((await app.inject({ method: 'GET', url: '/declared' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/declared', headers: { authorization: `Bearer ${KEY}` } })).statusCode).toBe(200);
    await app.close();
  });
});
