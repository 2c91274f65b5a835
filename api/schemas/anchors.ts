import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { dateTime, errorResponse, errors, json, uri } from './common.js';
import { z } from './zod.js';

const AnchorProof = z
  .object({
    format: z.enum(['mss-anchor-v1']),
    encoding: z.string().openapi({ description: 'the leaf, node and transaction encoding, in words' }),
    file_sha256: z.string().openapi({ description: 'SHA-256 of the signed file (hex)' }),
    leaf_index: z.number().int(),
    tree_size: z.number().int(),
    path: z
      .array(z.object({ side: z.enum(['left', 'right']), hash: z.string() }))
      .openapi({ description: 'siblings from the leaf up, at most ceil(log2(tree_size)); side left: h = sha256(0x01 || hash || h), right: h = sha256(0x01 || h || hash)' }),
    root: z.string().openapi({ description: 'Merkle root (hex); the leaf is sha256(0x00 || file_sha256)' }),
    chain_id: z.number().int(),
    transaction_hash: z.string(),
    block_number: z.number().int(),
    block_hash: z.string(),
    block_time: dateTime,
    from_address: z.string().openapi({ description: "the service's anchoring account (sender and receiver of the transaction)" }),
    calldata: z.string().openapi({ description: 'the transaction input: 0x6d73736101 || root' }),
  })
  .openapi('AnchorProof', { description: "Self-contained proof that a file's SHA-256 is committed to by a transaction on chain (format mss-anchor-v1)" });

export const Anchor = z
  .object({
    status: z.enum(['pending', 'anchoring', 'anchored']),
    proof_url: uri.openapi({ description: 'public GET /v1/media/anchors/{sha256}' }),
    root: z.string().nullable(),
    chain_id: z.number().int().nullable(),
    transaction_hash: z.string().nullable().openapi({ description: 'last transaction sent for the batch; may be replaced until anchored' }),
    proof: AnchorProof.nullable(),
  })
  .openapi('Anchor');

const AnchorLookup = Anchor.extend({ sha256: z.string() }).openapi('AnchorLookup');

export const AnchorVerification = z
  .object({
    status: z.enum(['not_anchored', 'pending', 'anchoring', 'anchored']),
    proof_url: z.string().nullable(),
    proof: AnchorProof.nullable(),
    chain: z
      .object({
        result: z.enum(['verified', 'failed', 'unavailable']),
        checked_against: z.enum(['chain']).optional(),
        reason: z.string().optional(),
        message: z.string().optional(),
        chain_id: z.number().int().optional(),
        transaction_hash: z.string().optional(),
        block_number: z.number().int().optional(),
        block_hash: z.string().optional(),
        block_time: dateTime.optional(),
        confirmations: z.number().int().optional(),
        from_address: z.string().optional(),
      })
      .nullable()
      .openapi({ description: 'the proof checked against the chain itself: verified, failed (with reason) or unavailable (the chain could not be asked)' }),
  })
  .openapi('AnchorVerification');

const SHA256 = /^[0-9a-fA-F]{64}$/;

export const AnchorParams = z.object({
  sha256: z
    .string()
    .regex(SHA256, 'must be 64 hex digits: the SHA-256 of the signed file')
    .transform((s) => s.toLowerCase())
    .openapi({ pattern: SHA256.source }),
});

export const anchorsPaths: RouteConfig[] = [
  {
    method: 'get',
    path: '/v1/media/anchors/{sha256}',
    tags: ['Media'],
    summary: 'Public anchor proof of a signed file, by the SHA-256 of its bytes (no credentials needed)',
    description: [
      'status pending (waiting in the pending batch), anchoring (batch sealed, transaction on its way) or anchored (proof complete).',
      'Check an anchored proof without the service - leaf = sha256(0x00 || file_sha256); for each path step',
      'h = sha256(0x01 || hash || h) when side is left, sha256(0x01 || h || hash) when right; h must equal root; the transaction',
      'transaction_hash on chain chain_id must be mined in block block_number with input 0x6d73736101 || root.',
    ].join('\n'),
    request: { params: AnchorParams },
    responses: {
      200: json(AnchorLookup, "The file's anchor"),
      400: errors.validation,
      404: errorResponse('The service never signed a file with this SHA-256'),
    },
  },
];
