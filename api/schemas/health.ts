import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { json } from './common.js';
import { z } from './zod.js';

const Health = z
  .object({
    status: z.enum(['ok', 'degraded']),
    database: z.enum(['ok', 'unreachable']),
    redis: z.enum(['ok', 'unreachable']),
  })
  .openapi('Health');

const Readiness = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    failing: z.array(z.enum(['database', 'redis', 'storage', 'vault', 'signing_certificate'])),
    checks: z
      .object({ database: z.string(), redis: z.string(), storage: z.string(), vault: z.string(), signing_certificate: z.string() })
      .openapi({
        description:
          "Each part: 'ok', 'not used' (Redis with the in-process queue), 'missing' (no valid signing certificate), 'not checked' (the vault, when there is no certificate to find its key) or what failed",
      }),
    trust_lists: z
      .union([
        z.object({ past_next_update: z.array(z.string()) }),
        z.object({ code: z.literal('trust_lists_unavailable'), error: z.string() }),
      ])
      .optional()
      .openapi({
        description:
          "Present only when something is wrong with the trust lists verification uses, without failing readiness (signing does not need them): the lists past their next update, or why they cannot be loaded (a file that differs from its pin, an unreadable TRUST_ANCHORS_FILE): verification then answers 503 trust_lists_unavailable until they are mended",
      }),
  })
  .openapi('Readiness');

const tags = ['Operations'];

export const healthPaths: RouteConfig[] = [
  {
    method: 'get',
    path: '/health',
    tags,
    summary: 'Liveness, and reachability of the database and Redis',
    responses: { 200: json(Health, 'All dependencies answer'), 503: json(Health, 'The database does not answer') },
  },
  {
    method: 'get',
    path: '/health/ready',
    tags,
    summary: 'Readiness: whether this process can take sign requests now',
    description:
      "200 when the database, Redis (for the BullMQ queue), the file store, the key vault (asked for the issuing CA's key) and a valid issuing CA for organisations' signing certificates (signing_certificate) are all there; otherwise 503 with the failing parts named in checks. Use it for load-balancer readiness; /health is the liveness check. Whether one organisation may sign (its own certificate revoked) is answered by POST /v1/media/sign (503 no_signing_certificate) and GET /org/signing-certificate.",
    responses: { 200: json(Readiness, 'Ready'), 503: json(Readiness, 'Not ready; checks names what fails') },
  },
];
