/**
 * A checkpoint's root goes on chain with the next anchor batch (through the service's own anchoring job, on anvil),
 * and `verify` checks it there: the transaction's input carries the batch root the checkpoint's root leads to.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createCheckpointer } from '../../shared/audit-log/checkpointer.js';
import { verifyAuditLog } from '../../shared/audit-log/verify.js';
import { recordAuditEvent } from '../../shared/audit/record.js';
import { rootFromCalldata } from '../../shared/chain/anchor-calldata.js';
import { startAnvil, type AnvilNode } from '../../shared/chain/anvil.js';
import { rootFromProof } from '../../shared/chain/merkle.js';
import { ChainConnection, createChainProvider } from '../../shared/chain/provider.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { anchorJob } from '../chain/support.js';
import { createPgliteTestDatabase, type TestDatabase } from '../support/database.js';

describe('audit checkpoints anchored on chain', function () {
  this.timeout(120_000);
  let node: AnvilNode;
  let db: TestDatabase;
  let dataDir: string;

  before(async () => {
    node = await startAnvil({ mining: 'auto' });
    db = await createPgliteTestDatabase();
    dataDir = mkdtempSync(path.join(tmpdir(), 'audit-anchor-'));
  });
  after(async () => {
    await db?.drop();
    await node?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("anchors the checkpoint's root with the next batch, and verify finds it in the transaction", async () => {
    const key = await createKeyVault({ cloudVaultUrl: undefined, dataDir }).ensureKey('audit-checkpoint');
    for (let i = 0; i < 5; i += 1) await recordAuditEvent(db.knex, { action: 'service.started', actor: { type: 'service', role: 'test' }, orgId: null, details: { i } });
    await createCheckpointer({ knex: db.knex, key, origin: 'audit.test/log' }).checkpoint();

    const { job } = anchorJob(db.knex, node.url, { useLock: false, expectedChainId: node.chainId, settings: { batchSize: 1, confirmations: 1 } });
    try {
      const sent = await job.run();
      expect(sent.error).to.equal(undefined);
      expect(sent.sealed).to.have.length(1);
      const confirmed = await job.run();
      expect(confirmed.confirmed).to.have.length(1);
    } finally {
      await job.stop();
    }

    const [row] = (await db.knex('audit_checkpoints as c').join('anchor_leaves as l', 'l.id', 'c.anchor_leaf_id').join('anchor_batches as b', 'b.id', 'l.batch_id').select('c.root_hash', 'l.path', 'b.tx_hash', 'b.root')) as Array<{ root_hash: string; path: unknown; tx_hash: string; root: string }>;
    const rootHex = Buffer.from(row!.root_hash, 'base64').toString('hex');
    const path_ = (typeof row!.path === 'string' ? JSON.parse(row!.path) : row!.path) as Parameters<typeof rootFromProof>[1];
    const provider = await createChainProvider(node.url, node.chainId);
    try {
      const tx = await provider.getTransaction(row!.tx_hash);
      expect(rootFromCalldata(tx!.data)).to.equal(rootFromProof(rootHex, path_).toString('hex')).and.to.equal(row!.root);
    } finally {
      provider.destroy();
    }

    const chain = new ChainConnection({ url: node.url, expectedChainId: node.chainId });
    try {
      const report = await verifyAuditLog({ knex: db.knex, publicKeySpki: key.publicKeySpki, origin: 'audit.test/log', chain, baseUrl: 'http://localhost:3000' });
      expect(report.problems).to.deep.equal([]);
      expect(report).to.include({ events: 5, checkpoints: 1, anchorsChecked: 1, anchorsPending: 0, anchorsUnchecked: 0 });
    } finally {
      chain.destroy();
    }
  });
});
