import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { PUBLIC } from '../route-auth.ts';

/** Where a newcomer goes from the service's root. */
const LINKS = [
  { path: '/docs', title: 'API reference (browsable)' },
  { path: '/console', title: 'console (sign in with the admin key)' },
  { path: '/openapi.json', title: 'OpenAPI 3.1 document' },
  { path: '/healthz', title: 'health' },
] as const;

const Home = z.object({ name: z.literal('Custodian'), links: z.array(z.object({ path: z.string(), title: z.string() })) });

const page = () =>
  [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>Custodian</title></head>',
    '<body><h1>Custodian</h1><p>Versioned plugin records and the authority agent jobs run under.</p><ul>',
    ...LINKS.map((l) => `<li><a href="${l.path}">${l.path}</a>: ${l.title}</li>`),
    '</ul></body></html>',
  ].join('\n');

/** Prefers HTML only when the client names it before (or instead of) JSON. */
const wantsHtml = (accept: string | undefined) => {
  if (!accept) return false;
  const html = accept.indexOf('text/html');
  const json = accept.indexOf('application/json');
  return html >= 0 && (json < 0 || html < json);
};

/** `GET /`: a small page (HTML for a browser, else JSON) naming the reference, the console, the API document and health. */
export const homeRoutes = (app: FastifyInstance) => {
  app.get(
    '/',
    {
      config: PUBLIC,
      schema: {
        tags: ['system'],
        summary: 'where to go: /docs, /console, /openapi.json, /healthz',
        response: { 200: { description: 'the links', content: { 'application/json': { schema: Home }, 'text/html': { schema: z.string() } } } },
      },
    },
    async (req, reply) =>
      wantsHtml(req.headers.accept)
        ? reply.type('text/html; charset=utf-8').send(page())
        : reply.type('application/json; charset=utf-8').send(JSON.stringify({ name: 'Custodian', links: LINKS })),
  );
};
