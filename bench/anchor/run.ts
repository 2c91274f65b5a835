/**
 * bench/anchor: gas per anchored file for batches of 1, 100 and 1000 files, against one transaction per file, on
 * the local chain (anvil) in one run. The batched side goes through the service's own anchoring job (seal the
 * pending files into a Merkle tree, send, confirm), on a throwaway embedded database; the per-file side sends one
 * anchor transaction per file hash with the same encoding and explicit nonces. Also prints the longest proof.
 * Goal: under 1/100 of the per-file gas at 1000 files per batch, proofs of at most ceil(log2(n)) siblings.
 *
 *   npx tsx bench/anchor/run.ts [sizes=1,100,1000]
 * Needs nothing running (anvil ships in node_modules; the database is PGlite in a temp directory).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AnchorAccount } from '../../shared/chain/anchor-account.js';
import { anchorCalldata } from '../../shared/chain/anchor-calldata.js';
import { ANVIL_SECOND_PRIVATE_KEY, startAnvil } from '../../shared/chain/anvil.js';
import { buildMerkleTree, maxProofLength } from '../../shared/chain/merkle.js';
import { createChainProvider } from '../../shared/chain/provider.js';
import { openDatabase } from '../../shared/db/index.js';
import { anchorJob, seedSignedFiles } from '../../test/chain/support.js';

const SIZES = (process.argv[2] ?? '1,100,1000').split(',').map(Number);

interface Row {
  n: number;
  batchGas: bigint;
  perFileGas: bigint;
  maxProof: number;
  sealMs: number;
}

const fmt = (v: bigint | number, width: number) => v.toLocaleString('en-US').padStart(width);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-anchor-'));
  const node = await startAnvil({ mining: 'auto' });
  const knex = await openDatabase({ databaseUrl: undefined, dataDir });
  const provider = await createChainProvider(node.url, node.chainId);
  const rows: Row[] = [];
  try {
    process.stdout.write(`anvil ${node.url} (chain ${node.chainId}); batched through the anchoring job, per-file as one transaction per file hash\n\n`);
    for (const n of SIZES) {
      // Batched: n signed files in the pending batch; the anchoring job seals them into one batch and anchors it.
      const files = await seedSignedFiles(knex, n);
      const { job } = anchorJob(knex, node.url, { useLock: false, expectedChainId: node.chainId, settings: { batchSize: n, confirmations: 1 } });
      const t0 = performance.now();
      const sent = await job.run();
      const sealMs = performance.now() - t0;
      if (sent.error || sent.sealed.length !== 1 || sent.sealed[0]!.size !== n) throw new Error(`unexpected run: ${JSON.stringify(sent)}`);
      const confirmed = await job.run();
      await job.stop();
      if (confirmed.confirmed.length !== 1) throw new Error(`batch not confirmed: ${JSON.stringify(confirmed)}`);
      const batch = await knex('anchor_batches').where({ id: confirmed.confirmed[0] }).first();
      const receipt = await provider.getTransactionReceipt(batch.tx_hash);
      const paths = (await knex('anchor_leaves').where({ batch_id: batch.id }).select('path')) as Array<{ path: unknown[] | string }>;
      const maxProof = Math.max(...paths.map((p) => (typeof p.path === 'string' ? JSON.parse(p.path) : p.path).length));

      // One transaction per file: each file hash anchored alone (a one-leaf tree), same encoding, explicit nonces.
      const account = new AnchorAccount(ANVIL_SECOND_PRIVATE_KEY);
      const fees = await account.quoteFees(provider);
      let nonce = await provider.getTransactionCount(account.address, 'latest');
      const hashes: string[] = [];
      for (const f of files) {
        const data = anchorCalldata(buildMerkleTree([f.sha256]).root);
        const tx = await account.sign({ chainId: node.chainId, nonce: nonce++, data, fees, gasLimit: 30_000n });
        if ((await account.broadcast(provider, tx.raw)) !== 'sent') throw new Error('per-file transaction refused');
        hashes.push(tx.hash);
      }
      let perFileGas = 0n;
      for (const h of hashes) perFileGas += (await provider.getTransactionReceipt(h))!.gasUsed;
      rows.push({ n, batchGas: receipt!.gasUsed, perFileGas, maxProof, sealMs });
    }

    process.stdout.write(
      'files/batch | batch tx gas | gas per file, batched | gas per file, one tx per file | batched / per-file | longest proof | ceil(log2 n)\n' +
        '----------- | ------------ | --------------------- | ----------------------------- | ------------------ | ------------- | ------------\n',
    );
    for (const r of rows) {
      const batched = Number(r.batchGas) / r.n;
      const single = Number(r.perFileGas) / r.n;
      process.stdout.write(
        `${fmt(r.n, 11)} | ${fmt(r.batchGas, 12)} | ${batched.toFixed(1).padStart(21)} | ${single.toFixed(1).padStart(29)} | ${`1/${Math.round(single / batched)}`.padStart(18)} | ${fmt(r.maxProof, 13)} | ${fmt(maxProofLength(r.n), 12)}\n`,
      );
    }
    process.stdout.write(`\nanchoring job run that seals (Merkle tree, every proof) and sends: ${rows.map((r) => `${r.n} files ${r.sealMs.toFixed(0)} ms`).join(', ')}\n`);
    const big = rows.find((r) => r.n === 1000);
    if (big) {
      const ratio = Number(big.batchGas) / 1000 / (Number(big.perFileGas) / 1000);
      const proofsOk = rows.every((r) => r.maxProof <= maxProofLength(r.n));
      process.stdout.write(
        `goal at 1000 files per batch: gas per file under 1/100 of one transaction per file: ${ratio < 0.01 ? 'met' : 'NOT met'} (${(ratio * 100).toFixed(3)}%); ` +
          `proofs within ceil(log2 n): ${proofsOk ? 'met' : 'NOT met'}\n`,
      );
    }
  } finally {
    provider.destroy();
    await knex.destroy();
    await node.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
