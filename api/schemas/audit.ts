import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { AUDIT_ACTIONS, AUDIT_OUTCOMES } from '../../shared/audit/vocabulary.js';
import { dateTime, json, nextCursor, pageFields, refusals, userOnly, uuid, uuidField } from './common.js';
import { z } from './zod.js';

const wholeNumber = (min: number) =>
  z.preprocess((v) => (typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v), z.number({ error: 'must be a whole number' }).int('must be a whole number').min(min, `must be at least ${min}`));
const base64Hash = z.string().openapi({ format: 'byte', description: 'SHA-256, base64', example: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=' });

export const AuditEventsQuery = z
  .object({
    limit: pageFields.limit,
    cursor: z.string().regex(/^\d{1,15}$/, 'is not valid').transform(Number).optional().openapi({ description: 'next_cursor of the previous page' }),
    action: z.enum(AUDIT_ACTIONS, { message: 'is not an action of the vocabulary (README, Audit log)' }).optional(),
    actor: z.string().trim().min(1).max(200).optional().openapi({ description: "the actor's id (user or API key), address, role or command, or its type" }),
    since: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time' }).transform((t) => new Date(t)).optional(),
    until: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time' }).transform((t) => new Date(t)).optional(),
  })
  .strict();
export const AuditEventParams = z.object({ event_id: uuidField });
export const ProofQuery = z.object({ tree_size: wholeNumber(1).optional().openapi({ description: 'default: the latest checkpoint' }) });
export const ConsistencyQuery = z.object({ first: wholeNumber(1), second: wholeNumber(1) });

const AuditEvent = z
  .object({
    id: uuid,
    leaf_index: z.number().int(),
    leaf_hash: base64Hash.openapi({ description: 'base64 SHA-256(0x00 || RFC 8785 JSON of this event without leaf_index and leaf_hash)' }),
    time: dateTime,
    org_id: uuid.nullable(),
    actor: z.record(z.string(), z.string()).openapi({ description: '{type: user|api_key|service|operator|anonymous, id | role | command | address}' }),
    action: z.enum(AUDIT_ACTIONS),
    target: z.object({ type: z.string(), id: z.string() }).nullable(),
    outcome: z.enum(AUDIT_OUTCOMES),
    details: z.record(z.string(), z.unknown()),
  })
  .openapi('AuditEvent');

const CheckpointView = z
  .object({
    origin: z.string(),
    tree_size: z.number().int(),
    root_hash: base64Hash,
    note: z.string().openapi({ description: 'the C2SP tlog-checkpoint signed note (ECDSA P-384 / SHA-384 signature line)' }),
    public_key: z.string().openapi({ description: "the checkpoint key's DER SubjectPublicKeyInfo, base64 (pin it out of band)" }),
    signed_at: dateTime,
  })
  .openapi('AuditCheckpoint');

const tags = ['Audit log'];

export const auditPaths: RouteConfig[] = [
  {
    method: 'get',
    path: '/org/audit-events',
    tags,
    summary: "The organisation's audit events, newest first, with their leaf index (admin)",
    security: userOnly,
    request: { query: AuditEventsQuery },
    responses: { 200: json(z.object({ events: z.array(AuditEvent), next_cursor: nextCursor }), 'Events'), ...refusals(400, 401, 403) },
  },
  {
    method: 'get',
    path: '/org/audit-events/{event_id}/proof',
    tags,
    summary: "The RFC 9162 inclusion proof of one of the organisation's events in the tree of tree_size leaves (admin); hashes only",
    security: userOnly,
    request: { params: AuditEventParams, query: ProofQuery },
    responses: {
      200: json(z.object({ leaf_index: z.number().int(), tree_size: z.number().int(), audit_path: z.array(base64Hash) }), 'The proof'),
      ...refusals(400, 401, 403, 404),
    },
  },
  {
    method: 'get',
    path: '/v1/audit/checkpoint',
    tags,
    summary: "The audit log's latest signed checkpoint (public)",
    responses: { 200: json(CheckpointView, 'The checkpoint'), ...refusals(404) },
  },
  {
    method: 'get',
    path: '/v1/audit/consistency',
    tags,
    summary: 'The RFC 9162 consistency proof between the trees of first and second leaves (public)',
    description: '404 with code `archived` when the proof needs hashes of events archived by the operator (`npm run audit -- export --before`): ask from the archived size or later.',
    request: { query: ConsistencyQuery },
    responses: { 200: json(z.object({ first: z.number().int(), second: z.number().int(), proof: z.array(base64Hash) }), 'The proof'), ...refusals(400, 404) },
  },
];
