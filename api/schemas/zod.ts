import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Every schema of the HTTP contract is built with this z: the same object validates a request and, through
// .openapi() metadata, describes it in /openapi.json.
extendZodWithOpenApi(z);

export { z };
