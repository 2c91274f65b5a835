import { createHash, randomUUID } from 'node:crypto';
import { RecordingLogger } from '../support/recording-logger.js';
import type { Knex } from 'knex';
import { insertAnchorLeaf } from '../../shared/db/repositories/anchors.js';
import { AnchorAccount } from '../../shared/chain/anchor-account.js';
import { ANVIL_DEV_PRIVATE_KEY } from '../../shared/chain/anvil.js';
import { ChainConnection } from '../../shared/chain/provider.js';
import type { AnchorConfig } from '../../shared/config.js';
import { startAnchorJob, type AnchorJob } from '../../scheduler/anchor-job.js';

export interface SeededFile {
  jobId: string;
  fileId: string;
  sha256: string;
}

let orgId: string | undefined;
let uploadId: string | undefined;

/**
 * Signed files as the sign worker leaves them (job signed, signed_files row, anchor leaf, one transaction each),
 * without running C2PA: the anchoring tests need many of them fast.
 */
export async function seedSignedFiles(knex: Knex, n: number): Promise<SeededFile[]> {
  if (!orgId || !(await knex('organisations').where({ id: orgId }).first())) {
    orgId = randomUUID();
    uploadId = randomUUID();
    await knex('organisations').insert({ id: orgId, name: 'Anchoring test org' });
    await knex('uploads').insert({ id: uploadId, org_id: orgId, filename: 'x.png', mime_type: 'image/png', size: 1, sha256: '0'.repeat(64), storage_key: 'x' });
  }
  const out: SeededFile[] = [];
  for (let i = 0; i < n; i += 1) {
    const jobId = randomUUID();
    const fileId = randomUUID();
    const sha256 = createHash('sha256').update(randomUUID()).digest('hex');
    await knex.transaction(async (trx) => {
      await trx('sign_jobs').insert({ id: jobId, org_id: orgId, upload_id: uploadId, manifest: JSON.stringify({ title: 't', creator: 'c' }), status: 'signed' });
      await trx('signed_files').insert({ id: fileId, org_id: orgId, job_id: jobId, filename: 'x-signed.png', mime_type: 'image/png', size: 1, sha256, storage_key: `k/${fileId}`, certificate_serial: '01' });
      await insertAnchorLeaf({ signedFileId: fileId, sha256 }, trx);
    });
    out.push({ jobId, fileId, sha256 });
  }
  return out;
}

export async function resetAnchoring(knex: Knex): Promise<void> {
  await knex.raw('TRUNCATE anchor_leaves, anchor_transactions, anchor_batches, signed_files, sign_jobs, uploads, organisations RESTART IDENTITY CASCADE');
  orgId = undefined;
}

export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export const mine = (url: string, blocks = 1) => rpc(url, 'anvil_mine', [`0x${blocks.toString(16)}`]);


export const TEST_ANCHOR_SETTINGS: AnchorConfig = { batchSize: 4, batchMaxAgeMs: 3_600_000, confirmations: 1, pollMs: 50, resendAfterMs: 3_600_000, maxInFlight: 16 };

/** An anchoring job on `url` run by hand (no loop unless asked), as the scheduler runs it. */
export function anchorJob(
  knex: Knex,
  url: string,
  options: { settings?: Partial<AnchorConfig>; expectedChainId?: number; logger?: RecordingLogger; loop?: boolean; useLock?: boolean } = {},
): { job: AnchorJob; logger: RecordingLogger; account: AnchorAccount } {
  const logger = options.logger ?? new RecordingLogger();
  const account = new AnchorAccount(ANVIL_DEV_PRIVATE_KEY);
  const job = startAnchorJob(
    {
      knex,
      chain: new ChainConnection({ url, expectedChainId: options.expectedChainId, timeoutMs: 3000 }),
      account,
      settings: { ...TEST_ANCHOR_SETTINGS, ...options.settings },
      baseUrl: 'http://localhost:3000',
      useLock: options.useLock ?? true,
      logger,
    },
    { loop: options.loop ?? false },
  );
  return { job, logger, account };
}

export async function jobStatuses(knex: Knex, jobIds: string[]): Promise<string[]> {
  const rows = (await knex('sign_jobs').whereIn('id', jobIds).select('id', 'status')) as Array<{ id: string; status: string }>;
  const byId = new Map(rows.map((r) => [r.id, r.status]));
  return jobIds.map((id) => byId.get(id)!);
}
