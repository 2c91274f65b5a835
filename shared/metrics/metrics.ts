import { Counter, Gauge, Histogram } from 'prom-client';
import type { QueueCounts } from '../queue/types.js';
import { registry } from './registry.js';

/**
 * Every metric the service exports, in one place so names and labels stay consistent across roles. A role
 * only updates those that concern it; the others stay empty in its output. Names are prefixed `mss_`.
 */

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Sign jobs by outcome: signed, retried (an attempt failed, another follows), failed (for good). */
export const signJobs = new Counter({
  name: 'mss_sign_jobs_total',
  help: 'Sign job attempts by outcome (signed, retried, failed) and error code (empty when signed)',
  labelNames: ['outcome', 'error_code'] as const,
  registers: [registry],
});

/** Time per stage of a successful sign job: prepare (claim, read, identity), fingerprint, sign (c2pa-rs + vault + TSA), store. */
export const signStageSeconds = new Histogram({
  name: 'mss_sign_stage_seconds',
  help: 'Time per stage of a signed job: prepare, fingerprint, sign, store',
  labelNames: ['stage'] as const,
  buckets: SECONDS,
  registers: [registry],
});

let queueDepth: (() => Promise<QueueCounts>) | undefined;

/** Where the queue-depth gauge reads from at scrape time: the process's sign queue, when it has one. */
export function reportQueueDepth(source: (() => Promise<QueueCounts>) | undefined): void {
  queueDepth = source;
}

/** Queue depth, read from the queue at scrape time; every process with the queue reports the same figures. */
export const queueJobs = new Gauge({
  name: 'mss_sign_queue_jobs',
  help: 'Sign jobs in the queue by state: waiting, active, delayed, failed (the same figures from every process that has the queue)',
  labelNames: ['state'] as const,
  registers: [registry],
  async collect() {
    // A scrape while Redis is down shows no figures rather than failing the whole page.
    const counts = await queueDepth?.().catch(() => undefined);
    this.reset();
    if (counts) for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
  },
});

/** Verifications of files over MAX_UPLOAD_BYTES, each read in a process of its own (api/media/large-file-verification.ts). */
export const largeVerifySeconds = new Histogram({
  name: 'mss_verify_large_seconds',
  help: 'Verifications of files over MAX_UPLOAD_BYTES read in a process of their own, by outcome (read, unreadable, failed, timeout), from their turn to the answer',
  labelNames: ['outcome'] as const,
  buckets: SECONDS,
  registers: [registry],
});

/** Large-file verifications turned away because too many were waiting (503 verification_busy). */
export const largeVerifyBusy = new Counter({
  name: 'mss_verify_large_busy_total',
  help: 'Verifications of files over MAX_UPLOAD_BYTES refused with 503 because too many were running or waiting',
  registers: [registry],
});

export const ocspResponses = new Counter({
  name: 'mss_ocsp_responses_total',
  help: 'OCSP responses by certificate status (good, revoked, unknown) or error status, and cache (hit, miss; miss: signed by the vault or read from the shared store)',
  labelNames: ['status', 'cache'] as const,
  registers: [registry],
});

export const tsaTokens = new Counter({
  name: 'mss_tsa_responses_total',
  help: 'RFC 3161 TSA answers: granted (a token issued) or rejected, with the failure info',
  labelNames: ['outcome', 'fail_info'] as const,
  registers: [registry],
});

export const vaultCallSeconds = new Histogram({
  name: 'mss_vault_call_seconds',
  help: 'Key vault calls by vault kind, operation (sign, get_key, ensure_key) and result (ok, error, not_found: a key that does not exist, a normal answer)',
  labelNames: ['vault', 'operation', 'result'] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const vaultErrors = new Counter({
  name: 'mss_vault_errors_total',
  help: 'Failed key vault calls by vault kind and operation',
  labelNames: ['vault', 'operation'] as const,
  registers: [registry],
});

export const anchorBatches = new Counter({
  name: 'mss_anchor_batches_total',
  help: 'Anchor batches by event: sealed, sent, confirmed',
  labelNames: ['event'] as const,
  registers: [registry],
});

export const anchorGasPerFile = new Histogram({
  name: 'mss_anchor_gas_per_file',
  help: 'Gas used per anchored file, per confirmed batch',
  buckets: [10, 25, 50, 100, 250, 1000, 5000, 25_000, 100_000],
  registers: [registry],
});

// mss_crl_age_seconds{crl}: defined in crl-age.ts (its gauge reads the database at scrape time through a
// `collect` callback, which prom-client takes only at construction); registerCrlAgeCollector(knex) turns it on.

export const reconciledJobs = new Counter({
  name: 'mss_reconciled_jobs_total',
  help: 'Sign jobs Postgres held as queued or processing that had no queue entry and were enqueued again',
  registers: [registry],
});
