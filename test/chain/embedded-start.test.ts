/**
 * `npm start` without CHAIN_RPC_URL runs an embedded anvil chain: a signed file gets anchored on it; the chain
 * stops with the service (SIGTERM), never outlives it (SIGKILL), and keeps its state across restarts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { groupMembers, startRole, type RoleProcess } from '../support/processes.js';

const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}', signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('chain: npm start with the embedded chain', function () {
  this.timeout(90_000);
  let dataDir: string;
  let service: RoleProcess | undefined;
  let env: Record<string, string>;
  let anchoredSha256: string | undefined; // from the first test, checked after the restart

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-embedded-'));
    const [port, ocsp, crl, tsa, chain, ops] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort()]);
    env = {
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      PORT: String(port),
      OCSP_PORT: String(ocsp),
      CRL_PORT: String(crl),
      TSA_PORT: String(tsa),
      CHAIN_PORT: String(chain),
      OPS_PORT: String(ops),
      REDIS_URL: 'redis://127.0.0.1:1', // no Redis: the in-process queue
      ANCHOR_BATCH_MAX_AGE_MS: '0',
      ANCHOR_POLL_MS: '100',
      BCRYPT_ROUNDS: '4',
      LOG_LEVEL: 'info',
    };
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  const base = () => `http://localhost:${env.PORT}`;
  const rpcUrl = () => `http://127.0.0.1:${env.CHAIN_PORT}`;
  const call = async (p: string, init: RequestInit & { token?: string } = {}) => {
    const res = await fetch(`${base()}${p}`, { ...init, headers: { ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}), ...(init.headers ?? {}) } });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('anchors a signed file on the chain it started; SIGKILL of the service takes the chain with it', async () => {
    service = await startRole('bin/start.ts', env, /service ready/, 60_000);
    expect(service.output()).to.include('embedded development chain started (anvil)');
    expect(service.output()).to.include(`"rpc":"${rpcUrl()}"`);
    // The first start issues the PKI: certificates are logged by serial, subject and fingerprint, never as DER.
    const longest = Math.max(...service.output().split('\n').map((l) => l.length));
    expect(longest, 'longest log line of the first start').to.be.below(2000);
    expect((await call('/health/ready')).body).to.deep.include({ status: 'ready', failing: [] });

    const reg = await call('/auth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@example.com', password: 'correct horse battery', org_name: 'Org' }) });
    const token = reg.body.access_token as string;
    const form = new FormData();
    form.append('file', new Blob([readFileSync(fixture('graphic.png'))]), 'g.png');
    const up = await call('/v1/media/upload', { method: 'POST', body: form, token });
    const job = await call('/v1/media/sign', { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ upload_id: up.body.upload_id, manifest: { title: 't', creator: 'c' } }) });
    const anchored = await until('anchored', async () => {
      const j = await call(`/v1/media/jobs/${job.body.job_id}`, { token });
      return j.body.status === 'anchored' ? j.body : undefined;
    });
    expect(anchored.anchor.proof.chain_id).to.equal(31337);
    anchoredSha256 = anchored.signed_file.sha256;

    // One operator listener serves every role's metrics: the signature, its timestamp, an OCSP answer, the anchor.
    const signing = (await call('/v1/certificates/signing', { token })).body;
    const dir = mkdtempSync(path.join(tmpdir(), 'ocsp-req-'));
    writeFileSync(path.join(dir, 'leaf.pem'), signing.certificate_pem);
    writeFileSync(path.join(dir, 'sub.pem'), signing.chain[1].pem);
    const ocsp = execFileSync('openssl', ['ocsp', '-issuer', path.join(dir, 'sub.pem'), '-cert', path.join(dir, 'leaf.pem'), '-url', `http://127.0.0.1:${env.OCSP_PORT}`, '-no_nonce', '-noverify'], { encoding: 'utf8' });
    expect(ocsp).to.match(/leaf\.pem: good/);
    rmSync(dir, { recursive: true, force: true });
    // The OCSP front processes send their counts to the role's process every second: wait for the answer's.
    let metrics = '';
    for (let i = 0; i < 50; i += 1) {
      metrics = await (await fetch(`http://127.0.0.1:${env.OPS_PORT}/metrics`)).text();
      if (/mss_ocsp_responses_total\{status="good",cache="(hit|miss)"\} 1/.test(metrics)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(metrics).to.include('mss_sign_jobs_total{outcome="signed",error_code=""} 1');
    expect(metrics).to.match(/mss_sign_stage_seconds_count\{stage="sign"\} 1/);
    expect(metrics).to.match(/mss_ocsp_responses_total\{status="good",cache="(hit|miss)"\} 1/);
    expect(metrics).to.match(/mss_tsa_responses_total\{outcome="granted"[^}]*\} [1-9]/);
    expect(metrics).to.match(/mss_anchor_batches_total\{event="confirmed"\} [1-9]\d*/);
    expect(metrics).to.match(/mss_sign_queue_jobs\{state="waiting"\} 0/);
    expect(metrics).to.include('mss_process_cpu_seconds_total');
    // No Redis here: the in-process queue has no Bull Board.
    expect((await fetch(`http://127.0.0.1:${env.OPS_PORT}/queues`)).status).to.equal(404);

    // SIGKILL to the service's process alone: the chain's watchdog sees its parent gone and ends anvil, which
    // writes its state (a SIGKILL to the whole group would lose the last few seconds of the chain).
    const leader = service.child.pid!;
    await service.killLeader();
    service = undefined;
    await until('chain gone after SIGKILL', async () => ((await answers(rpcUrl())) ? undefined : true), 10_000);
    // Nothing the service started outlives it: the OCSP fronts and the chain end with their parent.
    await until('process group gone', async () => (groupMembers(leader).length === 0 ? true : undefined), 10_000);
  });

  it('restarts on the same data directory with the chain state kept (the earlier proof still checks); SIGTERM stops both', async () => {
    service = await startRole('bin/start.ts', env, /service ready/, 60_000);
    expect(anchoredSha256, 'the first test anchored a file').to.be.a('string');
    const proof = await call(`/v1/media/anchors/${anchoredSha256}`);
    expect(proof.body.status).to.equal('anchored');
    const { JsonRpcProvider } = await import('ethers');
    const provider = new JsonRpcProvider(rpcUrl(), 31337, { staticNetwork: true });
    const tx = await provider.getTransaction(proof.body.proof.transaction_hash);
    expect(tx?.data).to.equal(proof.body.proof.calldata);
    provider.destroy();
    expect(await service.stop()).to.equal(0);
    service = undefined;
    expect(await answers(rpcUrl())).to.equal(false);
  });
});
