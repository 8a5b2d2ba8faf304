import type { FastifyInstance } from 'fastify';
import fastifySwaggerUi from '@fastify/swagger-ui';

/**
 * `GET /docs`: a browsable reference of /openapi.json (Swagger UI). Its scripts, styles and
 * images come from the package on this server, never from a CDN, and it checks the document
 * nowhere else (no validator badge). Public, like /openapi.json: it holds no data.
 */
export const docsRoutes = async (app: FastifyInstance) => {
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, auth: 'public' };
    });
    await scope.register(fastifySwaggerUi, {
      routePrefix: '/docs',
      uiConfig: { validatorUrl: null, docExpansion: 'list', deepLinking: true, defaultModelsExpandDepth: 0 },
      staticCSP: true,
    });
  });
};
