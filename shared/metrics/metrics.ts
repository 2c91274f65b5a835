import { Counter, Gauge, Histogram } from 'prom-client';
import type { QueueCounts } from '../queue/types.js';
import { loadedTrustStore, secondsToNextUpdate } from '../trust/store.js';
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
new Gauge({
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

/** What the API's pools (api/media/verify-pool.ts) report, read at scrape time: by pool name, summed over APIs. */
export interface VerifyPoolState {
  busy: number;
  queued: number;
  processes: number;
}

const verifyPools = new Set<{ name: string; state: () => VerifyPoolState }>();

/** Adds a pool's state to the gauges below, under its name; the function it returns takes it out (the pool closed). */
export function reportVerifyPool(name: string, state: () => VerifyPoolState): () => void {
  const entry = { name, state };
  verifyPools.add(entry);
  return () => verifyPools.delete(entry);
}

function poolGauge(name: string, help: string, key: keyof VerifyPoolState): void {
  new Gauge({
    name,
    help,
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const pool of verifyPools) this.inc({ pool: pool.name }, pool.state()[key]);
    },
  });
}

poolGauge('mss_verify_pool_busy', 'Verification pool tasks running now, by pool (verify: at most VERIFY_POOL_SIZE per API process; uploads: UPLOAD_CHECK_POOL_SIZE)', 'busy');
poolGauge('mss_verify_pool_queued', 'Verification pool tasks waiting for a process, by pool (at most VERIFY_QUEUE_LIMIT per pool and API process)', 'queued');
poolGauge('mss_verify_pool_processes', 'Verification pool processes alive, by pool (started on demand, ended when idle or grown past VERIFY_RECYCLE_BYTES)', 'processes');

new Gauge({
  name: 'mss_trust_list_next_update_seconds',
  help: 'Seconds until each trust list in use is due for its next update (negative: past it, run npm run trust -- update)',
  labelNames: ['list'],
  registers: [registry],
  collect() {
    this.reset();
    const store = loadedTrustStore();
    if (store) for (const [list, seconds] of Object.entries(secondsToNextUpdate(store))) this.set({ list }, seconds);
  },
});

/** Pool tasks by kind (verify, crjson, trust_source, fingerprint, check_image, read_stores) and outcome, from their turn to the answer. */
export const verifyPoolSeconds = new Histogram({
  name: 'mss_verify_pool_task_seconds',
  help: 'Verification pool tasks by task and outcome (ok, refused: the file was at fault, failed: the process died or erred, timeout, cancelled: the client went away and the process was killed), from their turn to the answer',
  labelNames: ['task', 'outcome'] as const,
  buckets: SECONDS,
  registers: [registry],
});

/** Time a task waited for a process. */
export const verifyPoolWaitSeconds = new Histogram({
  name: 'mss_verify_pool_wait_seconds',
  help: 'How long verification pool tasks waited for a process',
  labelNames: ['task'] as const,
  buckets: SECONDS,
  registers: [registry],
});

/**
 * Pool work not done: busy (503 verification_busy, the queue was full), failed (503 verification_failed), timeout, and
 * cancelled (the client went away: the task left the queue, or its process was killed).
 */
export const verifyPoolRejections = new Counter({
  name: 'mss_verify_pool_rejections_total',
  help: 'Verification pool tasks not done: busy (503, queue full), failed (503, the process died or erred), timeout (503), cancelled (the client went away: dropped from the queue or its process killed)',
  labelNames: ['reason'] as const,
  registers: [registry],
});

/** Public requests refused because their address already had PUBLIC_CONCURRENCY_PER_ADDRESS in flight (429). */
export const publicConcurrencyRejections = new Counter({
  name: 'mss_public_concurrency_rejections_total',
  help: 'Public requests refused with 429 because their client address already had PUBLIC_CONCURRENCY_PER_ADDRESS requests in flight',
  registers: [registry],
});

/** What the API's password threads (api/auth/password-pool.ts) report, read at scrape time: one per API, summed. */
export interface PasswordPoolState {
  running: number;
  waiting: number;
}

const passwordPools = new Set<() => PasswordPoolState>();

/** Adds a password pool's state to the gauge below; the function it returns takes it out (the pool closed). */
export function reportPasswordPool(state: () => PasswordPoolState): () => void {
  passwordPools.add(state);
  return () => passwordPools.delete(state);
}

new Gauge({
  name: 'mss_password_checks',
  help: 'bcrypt hashes and comparisons running in the password threads or waiting for one (at most PASSWORD_CHECKS_MAX per API process)',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    for (const state of ['running', 'waiting'] as const) this.set({ state }, [...passwordPools].reduce((sum, pool) => sum + pool()[state], 0));
  },
});

/** One bcrypt hash (registration, a new user) or comparison (sign-in) in a password thread, waiting excluded. */
export const passwordCheckSeconds = new Histogram({
  name: 'mss_password_check_seconds',
  help: 'bcrypt hashes (hash) and comparisons (compare) in the password threads, waiting excluded',
  labelNames: ['op'] as const,
  buckets: SECONDS,
  registers: [registry],
});

/** Sign-ins, registrations and new users refused with 503 auth_busy: PASSWORD_CHECKS_MAX checks were in flight. */
export const passwordChecksRefused = new Counter({
  name: 'mss_password_checks_refused_total',
  help: 'Requests refused with 503 auth_busy because PASSWORD_CHECKS_MAX password checks were running or waiting',
  registers: [registry],
});

export const ocspResponses = new Counter({
  name: 'mss_ocsp_responses_total',
  help: 'OCSP answers written by the HTTP edge, by certificate status (good, revoked, unknown, multiple), OCSP error status, or http_405/http_400/http_408/http_431 for refusals without an OCSP body; cache: hit, or miss (signed by the vault, read from the shared store, an error)',
  labelNames: ['status', 'cache'] as const,
  registers: [registry],
});

/**
 * The OCSP answer each signature staples (shared/pki/ocsp-stapler.ts), counted in the process that signs: stapled
 * (reason `cache` or `fetched`), or missing, and signed without it (`no_responder`, `unreachable`, `invalid_answer`).
 */
export const ocspStaples = new Counter({
  name: 'mss_ocsp_staples_total',
  help: "OCSP answers stapled in signatures (outcome stapled, reason cache or fetched) or missing, the file signed without one (outcome missing, reason no_responder: the certificate names no OCSP responder; unreachable: no answer in time; invalid_answer: an error status or an answer that does not check)",
  labelNames: ['outcome', 'reason'] as const,
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

/** Webhook delivery attempts by outcome: delivered, retried (another attempt follows), failed (for good), skipped (endpoint disabled). */
export const webhookDeliveries = new Counter({
  name: 'mss_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome: delivered, retried, failed (for good), skipped (endpoint disabled)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** Time of one delivery attempt, until the endpoint answered or the attempt failed. */
export const webhookDeliverySeconds = new Histogram({
  name: 'mss_webhook_delivery_seconds',
  help: 'Time of one webhook delivery attempt by result (success: a 2xx answer; failure: anything else)',
  labelNames: ['result'] as const,
  buckets: SECONDS,
  registers: [registry],
});

let webhookQueueDepth: (() => Promise<QueueCounts>) | undefined;

/** Where the webhook queue-depth gauge reads from at scrape time. */
export function reportWebhookQueueDepth(source: (() => Promise<QueueCounts>) | undefined): void {
  webhookQueueDepth = source;
}

new Gauge({
  name: 'mss_webhook_queue_jobs',
  help: 'Webhook deliveries in the queue by state: waiting, active, delayed, failed',
  labelNames: ['state'] as const,
  registers: [registry],
  async collect() {
    const counts = await webhookQueueDepth?.().catch(() => undefined);
    this.reset();
    if (counts) for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
  },
});
