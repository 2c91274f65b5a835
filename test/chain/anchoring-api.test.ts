/**
 * Anchoring end to end through the API: a real sign job (C2PA through the vault) puts the signed file's hash in the
 * pending batch; the anchoring job anchors it on anvil; the job view shows signed -> anchoring -> anchored with the
 * proof; the public proof endpoint needs no credentials; POST /v1/media/verify checks the proof against the chain;
 * bin/verify-anchor.ts checks it with nothing from the service.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import request from 'supertest';
import { startAnvil, type AnvilNode } from '../../shared/chain/anvil.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { loadSigningIdentity } from '../../shared/pki/signing-identity.js';
import { LocalJobEvents } from '../../shared/queue/job-events.js';
import { SIGN_QUEUE_NAME } from '../../shared/queue/types.js';
import { createFileStore } from '../../shared/storage/index.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { processSignJob } from '../../workers/sign-job.js';
import type { SignJobDeps } from '../../workers/sign-job/deps.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { anchorJob, mine } from './support.js';
import { nodeScriptArgs } from '../support/node-script.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url));
const binary = (res: request.Response, cb: (err: Error | null, body: Buffer) => void) => {
  const parts: Buffer[] = [];
  res.on('data', (d: Buffer) => parts.push(d));
  res.on('end', () => cb(null, Buffer.concat(parts)));
};

function verifyScript(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...nodeScriptArgs('bin/verify-anchor.ts'), ...args], { cwd: ROOT }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

describe('chain: anchoring through the API', function () {
  this.timeout(60_000);
  let node: AnvilNode;
  let api: TestApi;
  let acc: Account;
  let deps: SignJobDeps;
  let signed: Buffer;
  let sha256: string;
  let jobId: string;

  before(async () => {
    node = await startAnvil({ mining: 'auto' });
    api = await startTestApi({ CHAIN_RPC_URL: node.url, CHAIN_ID: String(node.chainId) });
    const vault = createKeyVault(api.config);
    await initPki({ knex: api.db.knex, vault, config: api.config });
    acc = await registerAccount(api.app, 'Newsroom');
    deps = {
      knex: api.db.knex,
      baseUrl: api.config.baseUrl,
      files: createFileStore(api.config),
      events: new LocalJobEvents(),
      signingIdentity: () => loadSigningIdentity({ knex: api.db.knex, vault }),
      logger: createLogger('silent', 'test'),
      fingerprintMode: api.config.fingerprintMode,
      maxImagePixels: api.config.maxImagePixels,
    };
  });
  after(async () => {
    const queue = new Queue(SIGN_QUEUE_NAME, { connection: { url: api.config.redisUrl }, prefix: api.config.queuePrefix });
    await queue.obliterate({ force: true });
    await queue.close();
    await api?.close();
    await node?.stop();
  });

  const getJob = async () => (await request(api.app).get(`/v1/media/jobs/${jobId}`).set(bearer(acc.access)).expect(200)).body;

  it('a signed file is downloadable at once and waits in the pending batch; then anchoring, then anchored with its proof', async () => {
    const up = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', fixture('graphic.png'), 'g.png').expect(201);
    const job = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest: { title: 'Harbour', creator: 'Jane' } }).expect(202);
    jobId = job.body.job_id;
    expect(job.body.anchor).to.equal(null);
    await processSignJob(deps, jobId, { number: 1, final: true });

    const signedJob = (await request(api.app).get(`/v1/media/jobs/${jobId}?wait=5`).set(bearer(acc.access)).expect(200)).body;
    expect(signedJob.status).to.equal('signed');
    signed = (await request(api.app).get(new URL(signedJob.signed_file.download_url).pathname).set(bearer(acc.access)).buffer(true).parse(binary).expect(200)).body;
    sha256 = createHash('sha256').update(signed).digest('hex');
    expect(signedJob.signed_file.sha256).to.equal(sha256);
    expect(signedJob.anchor).to.deep.include({ status: 'pending', root: null, transaction_hash: null, proof: null, proof_url: `${api.config.baseUrl}/v1/media/anchors/${sha256}` });

    const { job: anchor } = anchorJob(api.db.knex, node.url, { expectedChainId: node.chainId, settings: { batchSize: 1, confirmations: 2 } });
    try {
      const first = await anchor.run(); // sealed and sent; automine: 1 block, 1 of 2 confirmations
      expect(first.sent).to.have.length(1);
      const anchoring = await getJob();
      expect(anchoring.status).to.equal('anchoring');
      expect(anchoring.signed_file).to.not.equal(null);
      expect(anchoring.anchor).to.deep.include({ status: 'anchoring', transaction_hash: first.sent[0]!.hash, chain_id: node.chainId, proof: null });
      const listed = (await request(api.app).get('/v1/media/jobs?status=anchoring').set(bearer(acc.access)).expect(200)).body.jobs;
      expect(listed.map((j: { job_id: string }) => j.job_id)).to.deep.equal([jobId]);

      await mine(node.url); // the second block
      expect((await anchor.run()).confirmed).to.deep.equal([1]);
    } finally {
      await anchor.stop();
    }

    const anchored = await getJob();
    expect(anchored.status).to.equal('anchored');
    const proof = anchored.anchor.proof;
    expect(proof).to.include({ format: 'mss-anchor-v1', file_sha256: sha256, leaf_index: 0, tree_size: 1, chain_id: node.chainId, transaction_hash: anchored.anchor.transaction_hash });
    expect(proof.path).to.deep.equal([]);
    expect(proof.calldata).to.equal(`0x6d73736101${proof.root}`);
    expect(proof.block_number).to.be.a('number');
    expect(new Date(proof.block_time).getTime()).to.be.greaterThan(0);
  });

  it('a sign job delivered again after it was anchored stays anchored, with one signed file', async () => {
    await api.db.knex('sign_jobs').where({ id: jobId }).update({ status: 'queued' }); // as a re-delivered job finds it
    await processSignJob(deps, jobId, { number: 2, final: true });
    const again = await getJob();
    expect(again.status).to.equal('anchored');
    expect(again.signed_file.sha256).to.equal(sha256);
    expect(await api.db.knex('signed_files').where({ job_id: jobId })).to.have.length(1);
    expect(await api.db.knex('anchor_leaves')).to.have.length(1);
  });

  it('GET /v1/media/anchors/{sha256} is public and returns the proof; 404 for an unknown hash, 400 for a malformed one', async () => {
    const res = await request(api.app).get(`/v1/media/anchors/${sha256.toUpperCase()}`).expect(200);
    expect(res.headers['access-control-allow-origin']).to.equal('*');
    expect(res.headers['cache-control']).to.equal('public, max-age=300');
    expect(res.body).to.include({ sha256, status: 'anchored' });
    expect(res.body.proof).to.deep.equal((await getJob()).anchor.proof);
    expect((await request(api.app).get(`/v1/media/anchors/${'ab'.repeat(32)}`).expect(404)).body.error.code).to.equal('not_found');
    expect((await request(api.app).get('/v1/media/anchors/xyz').expect(400)).body.error.code).to.equal('invalid_parameter');
  });

  it('POST /v1/media/verify checks the proof against the chain', async () => {
    const ok = await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', signed, 'g-signed.png').expect(200);
    expect(ok.body.validation_state).to.equal('Trusted');
    expect(ok.body.anchor.status).to.equal('anchored');
    expect(ok.body.anchor.chain).to.include({ result: 'verified', checked_against: 'chain', chain_id: node.chainId, transaction_hash: ok.body.anchor.proof.transaction_hash });
    expect(ok.body.anchor.chain.confirmations).to.be.at.least(2);

    const other = await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', fixture('photo.jpg'), 'p.jpg').expect(200);
    expect(other.body.anchor).to.deep.equal({ status: 'not_anchored', proof_url: null, proof: null, chain: null });
  });

  it('verification reads the chain, not the database: a database pointing at another transaction fails', async () => {
    const batch = await api.db.knex('anchor_batches').first();
    // Another transaction on the same chain from the same account (a filler-like self transfer).
    const { Wallet } = await import('ethers');
    const { ANVIL_DEV_PRIVATE_KEY } = await import('../../shared/chain/anvil.js');
    const { createChainProvider } = await import('../../shared/chain/provider.js');
    const p = await createChainProvider(node.url, node.chainId);
    const wallet = new Wallet(ANVIL_DEV_PRIVATE_KEY);
    const nonce = await p.getTransactionCount(wallet.address, 'latest');
    const raw = await wallet.signTransaction({ type: 2, chainId: BigInt(node.chainId), nonce, to: wallet.address, value: 0n, gasLimit: 30000n, data: '0x6d73736101' + 'ee'.repeat(32), maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n });
    const hash = (await p.send('eth_sendRawTransaction', [raw])) as string;
    // Mined before the check: a transaction still pending would be a different failure (transaction_not_mined).
    await p.waitForTransaction(hash, 1, 60_000);
    p.destroy();
    await api.db.knex('anchor_batches').where({ id: batch.id }).update({ tx_hash: hash });
    try {
      const res = await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', signed, 'g.png').expect(200);
      expect(res.body.anchor.chain).to.include({ result: 'failed', reason: 'root_not_in_transaction' });
    } finally {
      await api.db.knex('anchor_batches').where({ id: batch.id }).update({ tx_hash: batch.tx_hash });
    }
  });

  it('bin/verify-anchor.ts checks the file with ethers and SHA-256 only (from the public endpoint or a proof file)', async function () {
    const server = api.app.listen(0);
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const file = path.join(api.config.dataDir, 'downloaded.png');
      writeFileSync(file, signed);
      const proof = (await getJob()).anchor.proof;
      const fromService = await verifyScript([file, '--rpc', node.url, '--service', base, '--expect-from', proof.from_address, '--min-confirmations', '2']);
      expect(fromService.code, fromService.out).to.equal(0);
      expect(fromService.out).to.match(/^VERIFIED: sha256 [0-9a-f]{64} is committed to by root/);

      const proofFile = path.join(api.config.dataDir, 'proof.json');
      writeFileSync(proofFile, JSON.stringify(proof));
      const offline = await verifyScript([file, '--rpc', node.url, '--proof', proofFile]);
      expect(offline.code, offline.out).to.equal(0);

      const tampered = Buffer.from(signed);
      tampered[tampered.length - 40] ^= 1;
      writeFileSync(file, tampered);
      const bad = await verifyScript([file, '--rpc', node.url, '--proof', proofFile]);
      expect(bad.code).to.equal(1);
      expect(bad.out).to.match(/FAILED: the proof's path does not lead/);
      const notAnchored = await verifyScript([file, '--rpc', node.url, '--service', base]);
      expect(notAnchored.code).to.equal(1);
      expect(notAnchored.out).to.match(/NOT ANCHORED/);
    } finally {
      server.close();
    }
  });

  it('with the chain down, verify still answers: the anchor check is unavailable, not failed', async () => {
    await node.stop();
    const res = await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', signed, 'g.png').expect(200);
    expect(res.body.validation_state).to.equal('Trusted');
    expect(res.body.anchor.status).to.equal('anchored');
    expect(res.body.anchor.chain).to.include({ result: 'unavailable', reason: 'chain_unreachable' });
  });
});
