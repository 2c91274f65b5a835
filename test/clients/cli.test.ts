/**
 * The mss CLI against the real service: the API on a port, a worker process, Postgres and Redis. It signs a folder,
 * resumes after being killed without signing anything twice, verifies, lists and downloads, fails with a summary,
 * and never prints its API key.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import sharp from 'sharp';
import request from 'supertest';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import type { AddressInfo } from 'node:net';
import { bearer, registerAccount, type Account } from '../support/api.js';
import { startCuttingProxy } from '../support/cutting-proxy.js';
import { noisePng } from '../support/noise-png.js';
import { startWebStack, type WebStack } from '../web/support.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'clients/typescript/src/cli.ts');
const FILES = 20;
// The CLI runs in a scratch folder, where `--import tsx` would not find the package: it is given by its address.
const TSX = import.meta.resolve('tsx');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A noisy image, different for each n: half JPEG, half PNG. */
async function image(n: number): Promise<{ name: string; bytes: Buffer }> {
  const base = sharp({ create: { width: 96 + n, height: 64, channels: 3, background: { r: (n * 37) % 256, g: (n * 91) % 256, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } });
  return n % 2 === 0 ? { name: `photo-${String(n).padStart(2, '0')}.jpg`, bytes: await base.jpeg().toBuffer() } : { name: `photo-${String(n).padStart(2, '0')}.png`, bytes: await base.png().toBuffer() };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('mss, the CLI (clients/typescript)', function () {
  this.timeout(300_000);
  let stack: WebStack;
  let acc: Account;
  let apiKey: string;
  let work: string;
  const outputs: string[] = [];

  before(async () => {
    stack = await startWebStack();
    acc = await registerAccount(stack.api.app, 'Newsroom');
    apiKey = (await request(stack.api.app).post('/org/api-keys').set(bearer(acc.access)).send({ name: 'mss' }).expect(201)).body.key as string;
    work = mkdtempSync(path.join(tmpdir(), 'mss-cli-'));
    mkdirSync(path.join(work, 'photos/desk'), { recursive: true });
    for (let n = 0; n < FILES; n += 1) {
      const { name, bytes } = await image(n);
      // A few in a subfolder: the out directory keeps the folder's layout.
      writeFileSync(path.join(work, n < 3 ? 'photos/desk' : 'photos', name), bytes);
    }
  });
  after(async () => {
    await stack?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const env = (key = apiKey, url = stack.baseUrl) => ({ PATH: process.env.PATH ?? '', MSS_URL: url, MSS_API_KEY: key });

  /** Starts the CLI (from its source, through tsx as the suite runs); `onStderr` sees its progress as it comes. */
  function start(args: string[], key?: string, onStderr?: (all: string, child: ChildProcess) => void, url?: string): { child: ChildProcess; done: Promise<Run> } {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], { cwd: work, env: env(key, url), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(stderr, child);
    });
    const done = new Promise<Run>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
    return { child, done };
  }
  const runs: Run[] = [];
  const mss = async (args: string[], key?: string): Promise<Run> => {
    const run = await start(args, key).done;
    runs.push(run);
    return run;
  };

  const jobCount = async () => Number((await stack.api.db.knex('sign_jobs').where({ org_id: acc.orgId }).count<{ count: string }[]>('* as count'))[0]!.count);

  it('sign: killed halfway, run again, every file is signed once and reads Trusted', async () => {
    const args = ['sign', 'photos', '--out', 'signed', '--creator', 'Jane Doe', '--concurrency', '4'];
    // The first run is killed (SIGKILL: no chance to tidy up) once 8 files are done.
    const first = start(args, undefined, (all, child) => {
      if ((all.match(/^signed /gm) ?? []).length >= 8) child.kill('SIGKILL');
    });
    const killed = await first.done;
    runs.push(killed);
    expect(killed.code, killed.stderr).to.equal(null);
    const doneBefore = (killed.stderr.match(/^signed /gm) ?? []).length;
    expect(doneBefore).to.be.within(8, FILES - 1);
    // Not a TTY: plain progress lines, one per file.
    expect(killed.stderr).to.match(/^signed \d+\/20 /m);

    // The killed run's lock is left behind, naming a process that is gone: the next run takes it over.
    expect(readFileSync(path.join(work, 'signed', '.mss-sign.lock'), 'utf8')).to.equal(`${first.child.pid}@${hostname()}\n`);
    const second = await mss(args);
    expect(second.code, second.stdout + second.stderr).to.equal(0);
    expect(existsSync(path.join(work, 'signed', '.mss-sign.lock')), 'the lock is released').to.equal(false);
    const summary = /^20 files: (\d+) signed, (\d+) already signed, 0 failed/m.exec(second.stdout);
    expect(summary, second.stdout).to.not.equal(null);
    // Everything the first run wrote is skipped; the second signs only what was left.
    expect(Number(summary![2])).to.be.at.least(doneBefore);
    expect(Number(summary![1]) + Number(summary![2])).to.equal(FILES);
    // One job per file, none twice, even for the sign requests the kill cut short.
    expect(await jobCount()).to.equal(FILES);
    const files = (await stack.api.db.knex('signed_files').where({ org_id: acc.orgId }).count<{ count: string }[]>('* as count'))[0]!.count;
    expect(Number(files)).to.equal(FILES);

    const list = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? list(path.join(dir, e.name)).map((f) => path.join(e.name, f)) : e.name.startsWith('.') ? [] : [e.name]));
    const written = list(path.join(work, 'signed')).sort();
    expect(written).to.have.length(FILES);
    expect(written.filter((f) => f.startsWith('desk/'))).to.have.length(3);
    expect(readdirSync(path.join(work, 'signed')).filter((f) => f.endsWith('.mss-partial'))).to.deep.equal([]);
    for (const file of written) {
      const report = await readAsset(readFileSync(path.join(work, 'signed', file)), file.endsWith('.png') ? 'image/png' : 'image/jpeg', { trustAnchorsPem: stack.rootPem });
      expect(report.validation_state, file).to.equal('Trusted');
      expect(report.manifest?.title, file).to.equal(path.basename(file));
      outputs.push(path.join('signed', file));
    }

    // A third run finds everything done and asks the service for nothing new.
    const third = await mss(args);
    expect(third.code).to.equal(0);
    expect(third.stdout).to.match(/^20 files: 0 signed, 20 already signed, 0 failed/m);
    expect(await jobCount()).to.equal(FILES);
  });

  it('verify: the verdict in words, --json the answer; exit 0 only when Trusted', async () => {
    const signed = await mss(['verify', outputs[0]!]);
    expect(signed.code, signed.stderr).to.equal(0);
    expect(signed.stdout).to.match(/^Trusted: the Content Credentials are intact/).and.include('Signed by: ').and.include('creator: Jane Doe');
    const json = await mss(['verify', outputs[1]!, '--json']);
    expect(json.code).to.equal(0);
    expect((JSON.parse(json.stdout) as { validation_state: string }).validation_state).to.equal('Trusted');
    const unsigned = await mss(['verify', 'photos/photo-05.png']);
    expect(unsigned.code).to.equal(1);
    expect(unsigned.stdout).to.match(/^No Content Credentials/);
  });

  it('jobs and download: the list, and a job\'s signed file as the service has it', async () => {
    const listed = await mss(['jobs', '--json', '--limit', '50']);
    expect(listed.code, listed.stderr).to.equal(0);
    const jobs = (JSON.parse(listed.stdout) as { jobs: { job_id: string; status: string; signed_file: { sha256: string } | null }[] }).jobs;
    expect(jobs).to.have.length(FILES);
    const text = await mss(['jobs', '--limit', '5']);
    expect(text.stdout.trim().split('\n').slice(0, 5).every((line) => jobs.some((j) => line.startsWith(j.job_id)))).to.equal(true);
    expect(text.stdout).to.match(/^more: mss jobs --cursor \S+$/m);

    const job = jobs[0]!;
    const got = await mss(['download', job.job_id, '--out', 'downloads']);
    expect(got.code, got.stderr).to.equal(0);
    expect(sha256(readFileSync(path.resolve(work, got.stdout.trim())))).to.equal(job.signed_file!.sha256);
  });

  it('sign: an upload whose connection is cut mid-way resumes from the bytes the service has, with progress in bytes', async () => {
    const proxy = await startCuttingProxy((stack.server.address() as AddressInfo).port);
    try {
      mkdirSync(path.join(work, 'large'), { recursive: true });
      const png = noisePng(1000, 1000);
      writeFileSync(path.join(work, 'large/harbour.png'), png);
      proxy.cutAfter(1_500_000);
      const run = await start(['sign', 'large', '--out', 'large-signed', '--creator', 'Jane Doe'], undefined, undefined, `http://127.0.0.1:${proxy.port}`).done;
      runs.push(run);
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(proxy.cuts).to.equal(1);
      // Off a terminal: a line at each quarter of the bytes, the last one all of them.
      expect(run.stderr).to.match(/^uploaded [\d.]+ MB of 2\.9 MB$/m);
      expect(run.stderr).to.include('uploaded 2.9 MB of 2.9 MB\n');
      // One session, resumed (not a second upload from zero), and it became the upload that was signed.
      const sessions = await stack.api.db.knex('upload_sessions').where({ org_id: acc.orgId, filename: 'harbour.png' });
      expect(sessions.map((s) => s.status)).to.deep.equal(['completed']);
      const report = await readAsset(readFileSync(path.join(work, 'large-signed/harbour.png')), 'image/png', { trustAnchorsPem: stack.rootPem });
      expect(report.validation_state).to.equal('Trusted');
    } finally {
      await proxy.close();
    }
  });

  it('a file the service refuses: the others are signed, the run exits 1 with a summary naming it', async () => {
    mkdirSync(path.join(work, 'mixed'));
    writeFileSync(path.join(work, 'mixed/notes.txt'), 'not a picture\n');
    const { name, bytes } = await image(40);
    writeFileSync(path.join(work, 'mixed', name), bytes);
    const before = await jobCount();
    const run = await mss(['sign', 'mixed', '--out', 'mixed-signed', '--creator', 'Jane Doe', '--title', 'Harbour']);
    expect(run.code).to.equal(1);
    expect(run.stdout).to.match(/^2 files: 1 signed, 1 failed/m).and.match(/failed: notes\.txt: unsupported_media_type: /);
    expect(run.stderr).to.match(/^failed \d\/2 notes\.txt/m);
    expect(await jobCount()).to.equal(before + 1);
  });

  it('sign: a second run into an out directory another run is writing into says so and exits 2', async () => {
    mkdirSync(path.join(work, 'pair'));
    for (const n of [50, 51]) {
      const { name, bytes } = await image(n);
      writeFileSync(path.join(work, 'pair', name), bytes);
    }
    const before = await jobCount();
    const args = ['sign', 'pair', '--out', 'pair-signed', '--creator', 'Jane Doe'];
    const first = start(args);
    const lock = path.join(work, 'pair-signed', '.mss-sign.lock');
    // Held once it names its holder: the lock file is created first and written after.
    const held = () => existsSync(lock) && readFileSync(lock, 'utf8').trim() !== '';
    for (let i = 0; i < 600 && !held(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(held(), 'the first run holds the lock').to.equal(true);
    // Held still while the second run tries: the first would otherwise finish two files first on a fast machine.
    first.child.kill('SIGSTOP');
    let second: Run;
    try {
      second = await mss(args);
    } finally {
      first.child.kill('SIGCONT');
    }
    expect(second.code).to.equal(2);
    expect(second.stderr).to.match(/^mss: another mss sign \(\d+@.+\) is writing into pair-signed: wait for it, or use another --out/m);
    const done = await first.done;
    runs.push(done);
    expect(done.code, done.stdout + done.stderr).to.equal(0);
    expect(done.stdout).to.match(/^2 files: 2 signed, 0 failed/m);
    // Only the first run's jobs; the lock is gone with it.
    expect(await jobCount()).to.equal(before + 2);
    expect(existsSync(lock)).to.equal(false);
  });

  it('the API key is never printed, not even when the service refuses it', async () => {
    const wrongKey = `svc_sk_live_${'x'.repeat(43)}`;
    const refused = await mss(['jobs'], wrongKey);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('invalid_api_key');
    const viaFlag = await mss(['jobs', '--api-key', wrongKey, '--url', 'ftp://nowhere'], '');
    expect(viaFlag.code).to.equal(2);
    const parseError = await mss(['jobs', `--api-key=${wrongKey}`, '--colour'], '');
    expect(parseError.code).to.equal(2);
    expect(parseError.stderr).to.include("Unknown option '--colour'");
    // A refused key stops a sign run at once instead of failing every file alike.
    const before = await jobCount();
    const signRefused = await mss(['sign', 'photos', '--out', 'refused', '--creator', 'Jane Doe', '--concurrency', '2'], wrongKey);
    expect(signRefused.code).to.equal(1);
    expect(signRefused.stdout).to.match(/^20 files: 0 signed, [12] failed, 1[89] not started/m).and.match(/^stopped: the service refused the API key \(invalid_api_key: /m);
    expect(await jobCount()).to.equal(before);
    for (const run of [...runs]) {
      expect(run.stdout + run.stderr).to.not.include(apiKey);
    }
    for (const run of [refused, viaFlag, parseError, signRefused]) expect(run.stdout + run.stderr).to.not.include(wrongKey);
    expect(runs.length).to.be.at.least(10);
  });
});
