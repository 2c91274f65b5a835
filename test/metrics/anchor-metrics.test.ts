/**
 * mss_anchor_batches_total{event} and mss_anchor_gas_per_file from the anchoring job against a real local chain
 * (anvil) and Postgres.
 */
import { expect } from 'chai';
import { startAnvil, type AnvilNode } from '../../shared/chain/anvil.js';
import { anchorJob, mine, resetAnchoring, rpc, seedSignedFiles } from '../chain/support.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { growth, scrape } from './support.js';

const BATCHES = 'mss_anchor_batches_total';
const batches = (event: string) => [BATCHES, { event }] as const;

describe('metrics: anchoring job (anvil, Postgres)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let node: AnvilNode | undefined;

  before(async () => {
    db = await createTestDatabase();
    await resetAnchoring(db.knex);
  });
  after(async () => {
    await node?.stop();
    await db?.drop();
  });

  it('sealed and sent once per batch (a fee bump is not another "sent"), confirmed, and gas per file from the receipt', async () => {
    node = await startAnvil({ mining: 'manual' });
    await seedSignedFiles(db.knex, 8);
    const { job } = anchorJob(db.knex, node.url, { settings: { batchSize: 4, confirmations: 1, resendAfterMs: 0 } });
    try {
      const first = await growth([batches('sealed'), batches('sent'), batches('confirmed')], async () => {
        const r = await job.run();
        expect(r.error).to.equal(undefined);
        expect(r.sent.map((s) => s.reason)).to.deep.equal(['first', 'first']);
      });
      expect(first).to.deep.equal([2, 2, 0]);

      const bumped = await growth([batches('sent')], async () => {
        expect((await job.run()).sent.map((s) => s.reason)).to.deep.equal(['fee_bump', 'fee_bump']);
      });
      expect(bumped).to.deep.equal([0]);

      await mine(node.url);
      const before = await scrape();
      const report = await job.run();
      const after = await scrape();
      expect(report.confirmed).to.deep.equal([1, 2]);
      expect(after.value(BATCHES, { event: 'confirmed' }) - before.value(BATCHES, { event: 'confirmed' })).to.equal(2);
      expect(after.value('mss_anchor_gas_per_file_count') - before.value('mss_anchor_gas_per_file_count')).to.equal(2);

      // The gas of each confirmed batch's mined transaction, shared by its 4 files.
      const rows = (await db.knex('anchor_batches').orderBy('id').select('tx_hash', 'leaf_count')) as Array<{ tx_hash: string; leaf_count: number }>;
      let expected = 0;
      for (const row of rows) {
        const receipt = await rpc<{ gasUsed: string }>(node.url, 'eth_getTransactionReceipt', [row.tx_hash]);
        expected += Number(BigInt(receipt.gasUsed)) / Number(row.leaf_count);
      }
      expect(expected).to.be.above(0);
      expect(after.value('mss_anchor_gas_per_file_sum') - before.value('mss_anchor_gas_per_file_sum')).to.be.closeTo(expected, 1e-6);
    } finally {
      await job.stop();
    }
  });
});
