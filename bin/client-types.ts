import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import type { OpenAPI3 } from 'openapi-typescript';
import { buildOpenApiDocument } from '../api/openapi/document.js';
import { PROJECT_ROOT } from '../shared/paths.js';

/** Where the client workspace keeps the types generated from the document (committed, checked for drift). */
export const CLIENT_TYPES_FILE = path.join(PROJECT_ROOT, 'clients/typescript/src/generated/openapi.ts');

/**
 * The client's types as openapi-typescript writes them from the document the API serves at /openapi.json. The
 * server URL in the document is the deployment's, so a fixed one is used: the types do not depend on it.
 */
export async function clientTypesSource(): Promise<string> {
  const document = buildOpenApiDocument({ baseUrl: 'http://localhost:3000' }) as unknown as OpenAPI3;
  const header = '// Generated from the service\'s OpenAPI document by `npm run client:generate`: do not edit.\n\n';
  return header + astToString(await openapiTS(document));
}
