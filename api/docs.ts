import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { Config } from '../shared/config.js';
import { buildOpenApiDocument } from './openapi/document.js';

/** /openapi.json and Swagger UI at /docs, both of the document generated from the request schemas (api/schemas). */
export function docsRouter(config: Pick<Config, 'baseUrl'>): Router {
  const document = buildOpenApiDocument(config);
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use('/docs', swaggerUi.serve, swaggerUi.setup(document, { customSiteTitle: 'Media Signing Service API' }));
  return router;
}
