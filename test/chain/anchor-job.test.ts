/**
 * The anchoring job with the real ethers client against a real local chain (anvil) and Postgres: batching by size and
 * age, many batches in flight with explicit nonces, confirmations, dropped / replaced / stuck transactions, the node
 * stopped and restarted mid-batch, a wrong chain, two schedulers, and no file left out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Transaction, Wallet } from 'ethers';
import { sealBatch } from '../../shared/anchoring/batches.js';
import { statusAfterSigning } from '../../shared/anchoring/leaves.js';
import { anchorViewsForFiles } from '../../shared/anchoring/views.js';
import { rootFromCalldata } from '../../shared/chain/anchor-calldata.js';
import { ANVIL_DEV_PRIVATE_KEY, startAnvil, type AnvilNode } from '../../shared/chain/anvil.js';
import { checkProofOnChain } from '../../shared/chain/proof.js';
import { createChainProvider } from '../../shared/chain/provider.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { anchorJob, jobStatuses, mine, resetAnchoring, rpc, seedSignedFiles } from './support.js';

describe('chain: anchoring job (ethers against anvil, Postgres)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let node: AnvilNode | undefined;
  const stops: Array<() => Promise<void>> = [];

  before(async () => {
    db = await createTestDatabase();
  });
  beforeEach(async () => {
    await resetAnchoring(db.knex);
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await node?.stop();
    node = undefined;
  });
  after(async () => {
    await db?.drop();
  });

  const start = async (options: Parameters<typeof startAnvil>[0] = {}) => {
    node = await startAnvil({ mining: 'manual', ...options });
    return node;
  };
  const job = (url: string, options: Parameters<typeof anchorJob>[2] = {}) => {
    const made = anchorJob(db.knex, url, options);
    stops.push(() => made.job.stop());
    return made;
  };
  const provider = (n: AnvilNode) => createChainProvider(n.url, n.chainId, 3000);
  const batches = () => db.knex('anchor_batches').orderBy('id');
  const transactions = () => db.knex('anchor_transactions').orderBy('id');

  it('seals by size, sends one transaction per batch with consecutive nonces, confirms after N blocks: signed -> anchoring -> anchored', async () => {
    const n = await start();
    const files = await seedSignedFiles(db.knex, 10);
    const { job: anchor } = job(n.url, { settings: { batchSize: 4, confirmations: 2 } });

    const first = await anchor.run();
    expect(first.error).to.equal(undefined);
    expect(first.sealed.map((b) => b.size)).to.deep.equal([4, 4]); // 2 files stay pending (below size and age)
    expect(first.sent.map((s) => [s.nonce, s.reason, s.outcome])).to.deep.equal([
      [0, 'first', 'sent'],
      [1, 'first', 'sent'],
    ]);
    expect(await jobStatuses(db.knex, files.map((f) => f.jobId))).to.deep.equal([...Array(8).fill('anchoring'), 'signed', 'signed']);

    await mine(n.url);
    expect((await anchor.run()).confirmed).to.deep.equal([]); // one confirmation of two
    await mine(n.url);
    expect((await anchor.run()).confirmed).to.deep.equal([1, 2]);
    expect(await jobStatuses(db.knex, files.map((f) => f.jobId))).to.deep.equal([...Array(8).fill('anchored'), 'signed', 'signed']);

    // One transaction per batch; its input on chain is the batch root; every proof checks against the chain.
    const p = await provider(n);
    for (const b of await batches()) {
      const tx = await p.getTransaction(b.tx_hash);
      expect(rootFromCalldata(tx!.data)).to.equal(b.root);
      expect(tx!.to).to.equal(tx!.from);
    }
    expect(await transactions()).to.have.length(2);
    const views = await anchorViewsForFiles(db.knex, 'http://x', files.map((f) => f.fileId));
    for (const f of files.slice(0, 8)) {
      const view = views.get(f.fileId)!;
      expect(view.status).to.equal('anchored');
      expect(view.proof!.path.length).to.be.at.most(2);
      const check = await checkProofOnChain(async () => ({ provider: p, chainId: n.chainId }), view.proof!);
      expect(check.result, JSON.stringify(check)).to.equal('verified');
      if (check.result === 'verified') expect(check.confirmations).to.be.at.least(2);
    }
    expect(views.get(files[9]!.fileId)!.status).to.equal('pending');
    p.destroy();
  });

  it('seals by age; the in-flight limit holds files back; a file is in exactly one batch', async () => {
    const n = await start({ mining: 'auto' });
    const files = await seedSignedFiles(db.knex, 3);
    const { job: anchor } = job(n.url, { settings: { batchSize: 100, batchMaxAgeMs: 60_000, maxInFlight: 1 } });
    expect((await anchor.run()).sealed).to.deep.equal([]);
    await db.knex('anchor_leaves').update({ created_at: db.knex.raw("now() - interval '2 minutes'") });
    const aged = await anchor.run();
    expect(aged.sealed.map((b) => b.size)).to.deep.equal([3]);
    // Automine: mined at once, 1 confirmation needed: confirmed on the next run.
    await seedSignedFiles(db.knex, 2);
    await db.knex('anchor_leaves').whereNull('batch_id').update({ created_at: db.knex.raw("now() - interval '2 minutes'") });
    const next = await anchor.run();
    expect(next.confirmed).to.deep.equal([1]);
    // The seal step ran before confirmation freed the one in-flight slot: the 2 new files waited.
    expect(next.sealed).to.deep.equal([]);
    expect((await anchor.run()).sealed.map((b) => b.size)).to.deep.equal([2]);
    expect(await jobStatuses(db.knex, files.map((f) => f.jobId))).to.deep.equal(['anchored', 'anchored', 'anchored']);
    const counts = await db.knex('anchor_leaves').select('batch_id').count('* as n').groupBy('batch_id').orderBy('batch_id');
    expect(counts.map((c) => [Number(c.batch_id), Number(c.n)])).to.deep.equal([
      [1, 3],
      [2, 2],
    ]);
  });

  it('concurrent sealers never put a file in two batches (FOR UPDATE SKIP LOCKED)', async () => {
    await seedSignedFiles(db.knex, 50);
    const sealed = await Promise.all(Array.from({ length: 8 }, () => sealBatch(db.knex, 10)));
    const made = sealed.filter((s) => s !== undefined);
    expect(made.reduce((sum, s) => sum + s!.size, 0)).to.equal(50);
    const rows = await db.knex('anchor_leaves').select('id', 'batch_id', 'leaf_index');
    expect(rows.every((r) => r.batch_id !== null)).to.equal(true);
    expect(new Set(rows.map((r) => `${r.batch_id}:${r.leaf_index}`)).size).to.equal(50);
  });

  it('a dropped transaction is re-sent: the same signed bytes at the same nonce', async () => {
    const n = await start();
    await seedSignedFiles(db.knex, 4);
    const { job: anchor } = job(n.url);
    const [sent] = (await anchor.run()).sent;
    expect(await rpc(n.url, 'anvil_dropTransaction', [sent!.hash])).to.equal(sent!.hash);
    const again = await anchor.run();
    expect(again.sent.map((s) => [s.hash, s.nonce, s.reason, s.outcome])).to.deep.equal([[sent!.hash, 0, 'rebroadcast', 'sent']]);
    await mine(n.url);
    expect((await anchor.run()).confirmed).to.deep.equal([1]);
    const [batch] = await batches();
    expect(batch.tx_hash).to.equal(sent!.hash);
    expect(await transactions()).to.have.length(1);
  });

  it('a replaced transaction (another transaction took its nonce) is re-sent with the next nonce and anchored once', async () => {
    const n = await start();
    const files = await seedSignedFiles(db.knex, 4);
    const { job: anchor, account } = job(n.url);
    const [first] = (await anchor.run()).sent;
    // Someone with the same key sends another transaction at nonce 0 with higher fees: it replaces ours in the pool.
    const wallet = new Wallet(ANVIL_DEV_PRIVATE_KEY);
    const other = await wallet.signTransaction({ type: 2, chainId: BigInt(n.chainId), nonce: 0, to: '0x000000000000000000000000000000000000dEaD', value: 1n, gasLimit: 21000n, maxFeePerGas: 50_000_000_000n, maxPriorityFeePerGas: 10_000_000_000n });
    await rpc(n.url, 'eth_sendRawTransaction', [other]);
    await mine(n.url);
    const p = await provider(n);
    expect(await p.getTransaction(first!.hash)).to.equal(null);
    expect(await p.getTransactionCount(account.address, 'latest')).to.equal(1);

    const resent = await anchor.run();
    expect(resent.sent.map((s) => [s.nonce, s.reason])).to.deep.equal([[1, 'new_nonce']]);
    await mine(n.url);
    expect((await anchor.run()).confirmed).to.deep.equal([1]);
    const [batch] = await batches();
    expect(batch.tx_hash).to.equal(resent.sent[0]!.hash);
    expect(Number(batch.nonce)).to.equal(1);
    expect(await jobStatuses(db.knex, files.map((f) => f.jobId))).to.deep.equal(Array(4).fill('anchored'));
    // Exactly one anchor of the root on chain.
    const block = await p.getBlock(Number(batch.block_number), true);
    const carrying = block!.prefetchedTransactions.filter((t) => rootFromCalldata(t.data) === batch.root);
    expect(carrying).to.have.length(1);
    p.destroy();
  });

  it('a transaction unmined past ANCHOR_RESEND_AFTER_MS is replaced with higher fees at the same nonce', async () => {
    const n = await start();
    await seedSignedFiles(db.knex, 4);
    const { job: anchor } = job(n.url, { settings: { resendAfterMs: 0 } });
    const [first] = (await anchor.run()).sent;
    const [bump] = (await anchor.run()).sent;
    expect([bump!.nonce, bump!.reason, bump!.outcome]).to.deep.equal([0, 'fee_bump', 'sent']);
    const txs = await transactions();
    expect(BigInt(txs[1].max_fee_per_gas) > BigInt(txs[0].max_fee_per_gas)).to.equal(true);
    expect(BigInt(txs[1].max_priority_fee_per_gas) * 1000n >= BigInt(txs[0].max_priority_fee_per_gas) * 1125n).to.equal(true);
    await mine(n.url);
    const done = await anchor.run();
    expect(done.confirmed).to.deep.equal([1]);
    const [batch] = await batches();
    expect(batch.tx_hash).to.equal(bump!.hash);
    expect(await (await provider(n)).getTransactionReceipt(first!.hash)).to.equal(null);
    expect(Transaction.from(txs[1].raw).nonce).to.equal(0);
  });

  it('the node stopped and restarted mid-batch: a failing run is retried; the lost transaction is re-sent; earlier proofs still check', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'anvil-state-'));
    try {
      const stateFile = path.join(dir, 'state.json');
      let n = await start({ stateFile });
      const port = n.port;
      const { job: anchor } = job(n.url);
      await seedSignedFiles(db.knex, 4);
      await anchor.run();
      await mine(n.url);
      expect((await anchor.run()).confirmed).to.deep.equal([1]);

      const second = await seedSignedFiles(db.knex, 4);
      const inFlight = (await anchor.run()).sent[0]!;
      expect(inFlight.nonce).to.equal(1);
      await n.stop(); // mid-batch: sent, in the node's pool, not mined

      await seedSignedFiles(db.knex, 4); // signing goes on while the chain is down
      const down = await anchor.run();
      expect(down.error).to.match(/ECONNREFUSED|connect/i);
      expect(down.sealed.map((b) => b.size)).to.deep.equal([4]); // sealing does not need the chain
      expect(await jobStatuses(db.knex, second.map((f) => f.jobId))).to.deep.equal(Array(4).fill('anchoring'));

      n = await start({ stateFile, port }); // the chain is back; its pool is empty
      node = n;
      const back = await anchor.run();
      expect(back.error).to.equal(undefined);
      expect(back.sent.map((s) => [s.nonce, s.reason, s.hash === inFlight.hash])).to.deep.equal([
        [1, 'rebroadcast', true],
        [2, 'first', false],
      ]);
      await mine(n.url);
      expect((await anchor.run()).confirmed).to.deep.equal([2, 3]);
      expect(await jobStatuses(db.knex, second.map((f) => f.jobId))).to.deep.equal(Array(4).fill('anchored'));

      // Batch 1, confirmed before the restart, is still on the (persisted) chain.
      const p = await provider(n);
      const [view] = (await anchorViewsForFiles(db.knex, 'http://x', [(await db.knex('anchor_leaves').where({ batch_id: 1 }).first()).signed_file_id])).values();
      expect((await checkProofOnChain(async () => ({ provider: p, chainId: n.chainId }), view!.proof!)).result).to.equal('verified');
      p.destroy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a chain that restarts empty (a reset dev chain): the batch beyond the gap gets a new nonce', async () => {
    let n = await start();
    const port = n.port;
    const { job: anchor } = job(n.url);
    await seedSignedFiles(db.knex, 4);
    await anchor.run();
    await mine(n.url);
    await anchor.run();
    await seedSignedFiles(db.knex, 4);
    expect((await anchor.run()).sent[0]!.nonce).to.equal(1);
    await n.stop();
    n = await start({ port });
    node = n;
    const after = await anchor.run();
    expect(after.sent.map((s) => [s.batch, s.nonce, s.reason])).to.deep.equal([[2, 0, 'new_nonce']]);
    await mine(n.url);
    expect((await anchor.run()).confirmed).to.deep.equal([2]);
  });

  it('checks the chain id: a node on another chain gets nothing', async () => {
    const n = await start({ chainId: 999 });
    await seedSignedFiles(db.knex, 4);
    const { job: anchor } = job(n.url, { expectedChainId: 31337 });
    const report = await anchor.run();
    expect(report.error).to.match(/chain id 999, expected 31337/);
    expect(report.sealed).to.have.length(1);
    expect(await transactions()).to.have.length(0);
    expect((await batches())[0].status).to.equal('sealed');
  });

  it('two schedulers at once: one anchors, the other skips; every batch has one transaction', async () => {
    const n = await start({ mining: 'auto' });
    await seedSignedFiles(db.knex, 12);
    const a = job(n.url).job;
    const b = job(n.url).job;
    const reports = await Promise.all([a.run(), b.run()]);
    expect(reports.filter((r) => r.skipped === 'locked')).to.have.length.at.most(1);
    const rerun = await Promise.all([a.run(), b.run()]);
    expect([...reports, ...rerun].every((r) => r.error === undefined)).to.equal(true);
    const all = await batches();
    expect(all).to.have.length(3);
    expect(all.every((x) => x.status === 'confirmed')).to.equal(true);
    expect(await transactions()).to.have.length(3);
    expect(new Set((await transactions()).map((t) => Number(t.nonce)))).to.deep.equal(new Set([0, 1, 2]));
  });

  it('retries RPC errors with backoff while the node is down, then anchors (loop)', async () => {
    const probe = await start();
    const port = probe.port;
    await probe.stop();
    node = undefined;
    await seedSignedFiles(db.knex, 4);
    const { logger } = job(`http://127.0.0.1:${port}`, { loop: true, settings: { pollMs: 20 } });
    await logger.logged((e) => e.msg === 'anchoring run failed; will retry' && e.obj.failures === 3);
    const delays = logger.entries.filter((e) => e.msg === 'anchoring run failed; will retry').map((e) => e.obj.retryInMs);
    expect(delays.slice(0, 3)).to.deep.equal([40, 80, 160]);
    node = await startAnvil({ port, mining: 'auto' });
    await logger.logged((e) => e.msg === 'anchor batch confirmed');
    expect((await batches())[0].status).to.equal('confirmed');
  });

  it('a signed file without a leaf (signed before anchoring existed) is added at start-up; statusAfterSigning follows its batch', async () => {
    const n = await start({ mining: 'auto' });
    const [orphan, other] = await seedSignedFiles(db.knex, 2);
    await db.knex('anchor_leaves').where({ signed_file_id: orphan!.fileId }).delete();
    const status = () => db.knex.transaction((trx) => statusAfterSigning(trx, orphan!.jobId));
    expect(await status()).to.equal('signed');
    const { job: anchor, logger } = job(n.url, { settings: { batchSize: 2 } });
    const report = await anchor.run();
    expect(logger.entries.find((e) => e.msg.startsWith('signed files without an anchor leaf'))?.obj).to.deep.equal({ files: 1 });
    expect(report.sealed.map((b) => b.size)).to.deep.equal([2]);
    expect(await status()).to.equal('anchoring');
    await anchor.run();
    expect(await status()).to.equal('anchored');
    expect(await jobStatuses(db.knex, [orphan!.jobId, other!.jobId])).to.deep.equal(['anchored', 'anchored']);
  });

  it('no file is left out: files signed while batches are sealed and sent all end up anchored', async () => {
    const n = await start({ mining: 'auto' });
    const { job: anchor } = job(n.url, { settings: { batchSize: 7 } });
    const seeded: string[] = [];
    const signing = (async () => {
      for (let i = 0; i < 10; i += 1) seeded.push(...(await seedSignedFiles(db.knex, 5)).map((f) => f.jobId));
    })();
    while (seeded.length < 50) await anchor.run();
    await signing;
    // Flush the rest (below batch size): age them.
    await db.knex('anchor_leaves').whereNull('batch_id').update({ created_at: db.knex.raw("now() - interval '2 hours'") });
    for (let i = 0; i < 3; i += 1) await anchor.run();
    expect(await jobStatuses(db.knex, seeded)).to.deep.equal(Array(50).fill('anchored'));
    const leafCount = await db.knex('anchor_leaves').whereNotNull('batch_id').count('* as n').first();
    expect(Number(leafCount!.n)).to.equal(50);
  });
});
