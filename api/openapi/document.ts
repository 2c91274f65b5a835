import { OpenAPIRegistry, OpenApiGeneratorV3, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { API_KEY_PREFIX } from '../../shared/api-keys.js';
import type { Config } from '../../shared/config.js';
import { PERMISSIONS, ROLES } from '../../shared/roles.js';
import { anchorsPaths } from '../schemas/anchors.js';
import { apiKeysPaths } from '../schemas/api-keys.js';
import { authPaths } from '../schemas/auth.js';
import { certificatesPaths } from '../schemas/certificates.js';
import { healthPaths } from '../schemas/health.js';
import { manifestRepositoryPaths } from '../schemas/manifest-repository.js';
import { manifestTemplatesPaths } from '../schemas/manifest-templates.js';
import { formatsInWords } from '../schemas/media.js';
import { organisationPaths } from '../schemas/organisation.js';
import { orgUsersPaths } from '../schemas/org-users.js';
import { organisationTrustAnchorsPaths } from '../schemas/organisation-trust-anchors.js';
import { signJobsPaths } from '../schemas/sign-jobs.js';
import { uploadsPaths } from '../schemas/uploads.js';
import { resumableUploadsPaths } from '../schemas/resumable-uploads.js';
import { verifyPaths } from '../schemas/verify.js';
import { webhooksPaths } from '../schemas/webhooks.js';
import { auditPaths } from '../schemas/audit.js';
import { identityCertificatePaths } from '../schemas/identity-certificates.js';

/** Every operation of the API, each described next to the schemas that validate its requests (api/schemas). */
export const OPERATIONS: readonly RouteConfig[] = [
  ...authPaths,
  ...identityCertificatePaths,
  ...orgUsersPaths,
  ...apiKeysPaths,
  ...organisationTrustAnchorsPaths,
  ...webhooksPaths,
  ...auditPaths,
  ...organisationPaths,
  ...uploadsPaths,
  ...resumableUploadsPaths,
  ...signJobsPaths,
  ...verifyPaths,
  ...anchorsPaths,
  ...manifestTemplatesPaths,
  ...manifestRepositoryPaths,
  ...certificatesPaths,
  ...healthPaths,
];

/** The role table of shared/roles.ts as Markdown, so /docs shows exactly what is enforced. */
function roleTable(): string {
  const head = `| Permission | ${ROLES.join(' | ')} | API key |\n|---|${ROLES.map(() => '---|').join('')}---|`;
  const rows = Object.values(PERMISSIONS).map((p) => {
    const cells = ROLES.map((r) => ((p.roles as readonly string[]).includes(r) ? 'yes' : '-'));
    return `| ${p.description} | ${cells.join(' | ')} | ${p.apiKeys ? 'yes' : '-'} |`;
  });
  return [head, ...rows].join('\n');
}

/** What the service does, as /docs opens: the same account as the README's first lines. */
function serviceDescription(): string {
  return [
    `Signs images, video and audio with C2PA Content Credentials: ${formatsInWords()}, each recognised by its content.`,
    "Every organisation signs as itself, with its own certificate (subject O and CN: its name) issued by the service's sub-CA and its own key in a key vault; every signature carries an RFC 3161 timestamp and every signed file is anchored on chain.",
    'Signed images get a soft binding unless their organisation turns it off (an ISCC fingerprint in the manifest and in the manifest repository), so a copy stripped of its credentials can be matched back by content; anyone can verify a file without an account (POST /v1/verify), and the manifest repository answers the C2PA Soft Binding Resolution API.',
  ].join(' ');
}

export function buildOpenApiDocument(config: Pick<Config, 'baseUrl'>) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access token from /auth/login, /auth/register or /auth/refresh',
  });
  registry.registerComponent('securitySchemes', 'apiKeyAuth', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: `Organisation API key (${API_KEY_PREFIX}...); acts as signer on /v1 routes`,
  });
  for (const operation of OPERATIONS) registry.registerPath(operation);
  return new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Media Signing and Trust Service',
      version: '1.0.0',
      description: [
        serviceDescription(),
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
  });
}
