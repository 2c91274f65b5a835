/**
 * Regenerates the typed client's types (clients/typescript/src/generated/openapi.ts) from the OpenAPI document, after
 * a route or schema changed; test/clients/drift.test.ts fails while they differ.
 *
 *   npm run client:generate
 */
import { writeFileSync } from 'node:fs';
import { CLIENT_TYPES_FILE, clientTypesSource } from './client-types.js';

writeFileSync(CLIENT_TYPES_FILE, await clientTypesSource());
