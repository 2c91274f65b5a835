/**
 * The anchoring job (scheduler role): every ANCHOR_POLL_MS it
 *
 * 1. seals the pending batch into a Merkle tree once it holds ANCHOR_BATCH_SIZE files or its oldest file has
 *    waited ANCHOR_BATCH_MAX_AGE_MS (while fewer than ANCHOR_MAX_IN_FLIGHT batches are unconfirmed);
 * 2. reconciles every unconfirmed batch with the chain and sends what needs sending, one transaction per batch,
 *    many batches in flight, each with an explicit nonce:
 *    - a batch whose transaction is mined with ANCHOR_CONFIRMATIONS blocks is confirmed (its jobs: anchored);
 *    - the nonces of unmined batches are laid out contiguously from the account's mined count: a batch whose
 *      transaction the node no longer knows (dropped, node restarted) is re-sent with the same signed bytes when
 *      its nonce is next in line, or signed again with the next free nonce when its nonce was used by another
 *      transaction (replaced) or lies beyond a gap; a transaction unmined for ANCHOR_RESEND_AFTER_MS is replaced
 *      with higher fees at the same nonce; a gap below a transaction the node holds is closed with another batch
 *      or an empty self-transaction;
 *    - every transaction is recorded in the database before it is broadcast.
 *
 * A failed run (the node down, an RPC error) is retried with exponential backoff; every step is safe to repeat.
 * On Postgres each run holds an advisory lock, so with several schedulers one anchors at a time (the others
 * skip). Sealing takes leaves FOR UPDATE SKIP LOCKED and a leaf's batch is set once, so a file is in exactly one
 * batch; a batch is confirmed once, by the first of its transactions found mined.
 */
import type { Knex } from 'knex';
import { AnchorAccount, feesFromColumns, type BroadcastOutcome, type FeeQuote } from '../shared/chain/anchor-account.js';
import { anchorCalldata } from '../shared/chain/anchor-calldata.js';
import { describeChainError, type ChainConnection } from '../shared/chain/provider.js';
import type { AnchorConfig } from '../shared/config.js';
import { enrolMissingLeaves } from '../shared/anchoring/leaves.js';
import { anchorBatches, anchorGasPerFile } from '../shared/metrics/metrics.js';
import { confirmBatch, recordTransaction, sealBatch } from '../shared/anchoring/batches.js';
import { markBroadcast, pendingLeafSummary, unconfirmedBatchCount, unconfirmedBatches, type TransactionReason, type UnconfirmedBatch } from '../shared/db/repositories/anchors.js';
import type { JobLogger } from './crl-job.js';

/** First key of the anchoring advisory lock ("ANC"); the second is 1. */
const LOCK_NAMESPACE = 0x414e43;
const MAX_BACKOFF_MS = 60_000;

export interface AnchorJobDeps {
  knex: Knex;
  chain: ChainConnection;
  account: AnchorAccount;
  settings: AnchorConfig;
  /** The API's address, for the job views of file.anchored webhook events (BASE_URL). */
  baseUrl: string;
  /** Take a Postgres advisory lock per run (several schedulers); false on the embedded PGlite (one process). */
  useLock: boolean;
  logger: JobLogger;
}

export interface SentTransaction {
  batch: number | null;
  nonce: number;
  hash: string;
  reason: TransactionReason | 'rebroadcast';
  outcome: BroadcastOutcome;
}

export interface AnchorRunReport {
  /** Another scheduler held the lock: nothing was done. */
  skipped?: 'locked';
  sealed: Array<{ id: number; size: number; root: string }>;
  sent: SentTransaction[];
  confirmed: number[];
  /** The run failed here (it is retried with backoff). */
  error?: string;
}

export interface AnchorJob {
  /** Runs once now (after any run in progress) and settles with what it did; never throws. */
  run(): Promise<AnchorRunReport>;
  stop(): Promise<void>;
}

async function withAnchorLock<T>(knex: Knex, useLock: boolean, fn: () => Promise<T>): Promise<T | undefined> {
  if (!useLock) return fn();
  // The lock lives in a transaction of its own (its connection), while the work commits step by step through
  // the pool: a crash releases the lock with the connection and loses nothing already recorded.
  const trx = await knex.transaction();
  try {
    const result = (await trx.raw('SELECT pg_try_advisory_xact_lock(?::int, 1) AS locked', [LOCK_NAMESPACE])) as { rows: Array<{ locked: boolean }> };
    if (!result.rows[0]?.locked) return undefined;
    return await fn();
  } finally {
    await trx.commit().catch(() => undefined);
  }
}

export function startAnchorJob(deps: AnchorJobDeps, options: { loop?: boolean } = {}): AnchorJob {
  const { knex, chain, account, settings, logger } = deps;
  const loop = options.loop ?? true;
  let stopped = false;
  let failures = 0;
  let enrolled = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<AnchorRunReport> = Promise.resolve({ sealed: [], sent: [], confirmed: [] });

  async function sealDue(report: AnchorRunReport): Promise<void> {
    for (;;) {
      if ((await unconfirmedBatchCount(knex)) >= settings.maxInFlight) return;
      const { count, oldestAgeMs } = await pendingLeafSummary(knex);
      if (count === 0 || (count < settings.batchSize && oldestAgeMs < settings.batchMaxAgeMs)) return;
      const batch = await sealBatch(knex, settings.batchSize);
      if (!batch) return;
      report.sealed.push(batch);
      anchorBatches.inc({ event: 'sealed' });
      logger.info({ batch: batch.id, files: batch.size, root: batch.root, why: count >= settings.batchSize ? 'size' : 'age' }, 'anchor batch sealed');
    }
  }

  async function reconcile(report: AnchorRunReport): Promise<void> {
    const batches = await unconfirmedBatches(knex);
    if (batches.length === 0) return;
    const { provider, chainId } = await chain.ready(); // also checks the chain id, on every run
    // Counts first, receipts after: a nonce seen used here whose transaction is ours shows up as mined below.
    const { latest, pending } = await account.nonces(provider);

    let fees: FeeQuote | undefined;
    let gasLimit: bigint | undefined;
    const quote = async () => (fees ??= await account.quoteFees(provider));
    const limit = async (data: string) => (gasLimit ??= await account.gasLimit(provider, data));

    const broadcast = async (batch: number | null, tx: { nonce: number; hash: string; raw: string }, reason: SentTransaction['reason']) => {
      const outcome = await account.broadcast(provider, tx.raw);
      await markBroadcast(tx.hash, knex);
      report.sent.push({ batch, nonce: tx.nonce, hash: tx.hash, reason, outcome });
      const log = outcome === 'sent' || outcome === 'already_known' ? logger.info : logger.warn;
      log.call(logger, { batch, nonce: tx.nonce, tx: tx.hash, reason, outcome }, 'anchor transaction broadcast');
    };
    const send = async (batch: UnconfirmedBatch | null, nonce: number, reason: TransactionReason, feeQuote?: FeeQuote) => {
      const data = batch ? anchorCalldata(batch.root) : '0x';
      const signed = await account.sign({ chainId, nonce, data, fees: feeQuote ?? (await quote()), gasLimit: batch ? await limit(data) : 21000n });
      await recordTransaction(knex, batch?.id ?? null, signed, { reason, chainId, from: account.address });
      // mss_anchor_batches_total{event="sent"}: once per batch, when its first transaction is recorded (the batch
      // goes from sealed to sent) and broadcast; re-sends, fee bumps and rebroadcasts of a sent batch do not count.
      if (batch?.status === 'sealed') anchorBatches.inc({ event: 'sent' });
      await broadcast(batch?.id ?? null, signed, reason);
    };

    // 1. Which batches are mined (any of their transactions on this chain), and which are waiting in the node.
    const mined = new Map<number, { hash: string; nonce: number; blockNumber: number; blockHash: string; gasUsed: bigint; files: number }>();
    const known = new Set<number>();
    const retry: UnconfirmedBatch[] = []; // to be signed again with a fresh nonce
    for (const b of batches) {
      if (b.status !== 'sent') continue;
      if (b.chain_id !== chainId) {
        logger.warn({ batch: b.id, sentOn: b.chain_id, chainId }, 'batch was sent on another chain; sending it again on this one');
        retry.push(b);
        continue;
      }
      for (const tx of [...b.transactions].reverse()) {
        if (tx.chain_id !== chainId) continue;
        const state = await AnchorAccount.lookup(provider, tx.tx_hash);
        if (state.state === 'mined') {
          if (state.receipt.status === 1) {
            const { blockNumber, blockHash, gasUsed } = state.receipt;
            mined.set(b.id, { hash: tx.tx_hash, nonce: tx.nonce, blockNumber, blockHash, gasUsed, files: b.leaf_count });
          } else {
            logger.warn({ batch: b.id, tx: tx.tx_hash }, 'anchor transaction failed on chain; sending again');
            retry.push(b);
          }
          break;
        }
        if (state.state === 'pending' && tx.nonce === b.nonce) known.add(b.id);
      }
    }

    // 2. Confirm what has enough blocks on top.
    if (mined.size > 0) {
      const head = await provider.getBlockNumber();
      for (const [id, m] of mined) {
        const confirmations = head - m.blockNumber + 1;
        if (confirmations < settings.confirmations) continue;
        const block = await provider.getBlock(m.blockNumber);
        if (!block || block.hash !== m.blockHash) continue; // reorganised meanwhile: look again next run
        if (await confirmBatch(knex, id, { txHash: m.hash, nonce: m.nonce, blockNumber: m.blockNumber, blockHash: m.blockHash, blockTime: new Date(block.timestamp * 1000) }, deps.baseUrl)) {
          report.confirmed.push(id);
          anchorBatches.inc({ event: 'confirmed' });
          // The receipt read above (no extra RPC): gas of the batch's transaction shared by its files.
          if (m.files > 0) anchorGasPerFile.observe(Number(m.gasUsed) / m.files);
          logger.info({ batch: id, tx: m.hash, block: m.blockNumber, confirmations, gasUsed: Number(m.gasUsed) }, 'anchor batch confirmed');
        }
      }
    }

    // 3. Lay the unmined batches' nonces out contiguously from `latest`.
    const retryIds = new Set(retry.map((b) => b.id));
    const unmined = batches.filter((b) => b.status === 'sent' && !mined.has(b.id) && !retryIds.has(b.id));
    for (const b of unmined) if (b.nonce! < latest) retry.push(b); // its nonce went to another transaction: replaced
    const holders = unmined
      .filter((b) => b.nonce! >= latest)
      .sort((a, b) => a.nonce! - b.nonce! || Number(known.has(b.id)) - Number(known.has(a.id)) || a.id - b.id);
    const fresh = batches.filter((b) => b.status === 'sealed');
    retry.sort((a, b) => a.id - b.id);
    let cursor = latest;
    for (let i = 0; i < holders.length; ) {
      const b = holders[i]!;
      if (b.nonce! < cursor) {
        retry.push(b); // a second batch on a nonce already held
        i += 1;
      } else if (b.nonce === cursor) {
        const current = [...b.transactions].reverse().find((t) => t.nonce === b.nonce)!;
        if (!known.has(b.id)) {
          logger.warn({ batch: b.id, nonce: b.nonce, tx: current.tx_hash }, 'anchor transaction unknown to the node (dropped); sending it again');
          await broadcast(b.id, { nonce: current.nonce, hash: current.tx_hash, raw: current.raw }, 'rebroadcast');
        } else if (Date.now() - current.created_at.getTime() >= settings.resendAfterMs) {
          const bumped = AnchorAccount.replacementFees(feesFromColumns(current), await quote());
          logger.warn({ batch: b.id, nonce: b.nonce, waitedMs: Date.now() - current.created_at.getTime() }, 'anchor transaction not mined in time; replacing it with higher fees');
          await send(b, b.nonce!, 'fee_bump', bumped);
        }
        cursor += 1;
        i += 1;
      } else if (!known.has(b.id)) {
        await send(b, cursor, 'new_nonce'); // beyond a gap and lost anyway: move it down
        cursor += 1;
        i += 1;
      } else {
        // A gap below a transaction the node holds: fill it, or that transaction is never mined.
        const filler = retry.shift() ?? fresh.shift();
        if (filler) await send(filler, cursor, filler.status === 'sealed' ? 'first' : 'new_nonce');
        else await send(null, cursor, 'filler');
        cursor += 1;
      }
    }
    // 4. Re-send replaced batches and send new ones after every nonce in use (ours or, unexpectedly, another's).
    let next = Math.max(cursor, pending);
    for (const b of retry) await send(b, next++, 'new_nonce');
    for (const b of fresh) await send(b, next++, 'first');
  }

  async function once(): Promise<AnchorRunReport> {
    const report: AnchorRunReport = { sealed: [], sent: [], confirmed: [] };
    try {
      const done = await withAnchorLock(knex, deps.useLock, async () => {
        if (!enrolled) {
          const added = await enrolMissingLeaves(knex);
          if (added > 0) logger.warn({ files: added }, 'signed files without an anchor leaf found; added to the pending batch');
          enrolled = true;
        }
        await sealDue(report);
        await reconcile(report);
        return true;
      });
      if (!done) report.skipped = 'locked';
      failures = 0;
    } catch (err) {
      failures += 1;
      report.error = describeChainError(err);
      logger.warn({ err: report.error, failures, retryInMs: delay() }, 'anchoring run failed; will retry');
    }
    return report;
  }

  const delay = () => (failures === 0 ? settings.pollMs : Math.min(MAX_BACKOFF_MS, settings.pollMs * 2 ** Math.min(failures, 16)));

  const schedule = () => {
    if (stopped || !loop) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), delay());
    timer.unref();
  };

  const run = (): Promise<AnchorRunReport> => {
    clearTimeout(timer);
    running = running.then(async () => {
      if (stopped) return { sealed: [], sent: [], confirmed: [] };
      const report = await once();
      schedule();
      return report;
    });
    return running;
  };

  schedule();
  return {
    run,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      chain.destroy();
    },
  };
}
