import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { Router } from 'express';
import swaggerJsdoc from 'swagger-jsdoc';
import swaggerUi from 'swagger-ui-express';
import { API_KEY_PREFIX } from '../shared/api-keys.js';
import type { Config } from '../shared/config.js';
import { PERMISSIONS, ROLES } from '../shared/roles.js';
import { openApiComponents } from './openapi-components.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The role table of shared/roles.ts as Markdown, so /docs shows exactly what is enforced. */
function roleTable(): string {
  const head = `| Permission | ${ROLES.join(' | ')} | API key |\n|---|${ROLES.map(() => '---|').join('')}---|`;
  const rows = Object.entries(PERMISSIONS).map(([, p]) => {
    const cells = ROLES.map((r) => ((p.roles as readonly string[]).includes(r) ? 'yes' : '-'));
    return `| ${p.description} | ${cells.join(' | ')} | ${p.apiKeys ? 'yes' : '-'} |`;
  });
  return [head, ...rows].join('\n');
}

export function buildOpenApiDocument(config: Pick<Config, 'baseUrl'>): object {
  return swaggerJsdoc({
    definition: {
      openapi: '3.0.3',
      info: {
        title: 'Media Signing and Trust Service',
        version: '1.0.0',
        description: [
          'Signs JPEG and PNG images with C2PA Content Credentials through keys held in a key vault.',
          '',
          `Interactive users send \`Authorization: Bearer <access token>\` (15 minutes; refresh tokens last 30 days and are single use). Machines send \`X-API-Key: ${API_KEY_PREFIX}...\`; API keys act as \`signer\` within their organisation on /v1 routes.`,
          '',
          'Every error is `{"error": {"code", "message"}}`. Media routes carry the /v1 prefix; /auth and /org do not.',
          '',
          '### Roles',
          roleTable(),
        ].join('\n'),
      },
      servers: [{ url: config.baseUrl }],
      components: openApiComponents,
    },
    apis: [path.join(HERE, 'routes', '*.ts'), path.join(HERE, 'routes', '*.js')],
  });
}

export function docsRouter(config: Pick<Config, 'baseUrl'>): Router {
  const document = buildOpenApiDocument(config);
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use('/docs', swaggerUi.serve, swaggerUi.setup(document, { customSiteTitle: 'Media Signing Service API' }));
  return router;
}
