import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import fc from 'fast-check';
import { startIssuanceJob, type IssuanceJob } from '../../scheduler/issuance-job.js';
import { loadConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { softBindingValue } from '../../shared/softbinding/binding-value.js';
import { encodeImageCode } from '../../shared/softbinding/iscc-codec.js';
import { TEST_REDIS_URL } from '../support/api.js';
import { descendantFilesUnder, freePort, hostileTrafficEnv, openDescriptors, startApiProcess, type Descriptor } from '../support/api-process.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { operationsOf, stringFields, type OpenApiDoc, type Operation } from '../support/openapi-operations.js';
import type { RoleProcess } from '../support/processes.js';
import { sendRaw, type RawOutcome } from '../support/raw-http.js';
import { makeHostileMedia, type HostileMedia } from '../support/hostile-media.js';
import { buildRequest, fuzzCase, getField, renderHostileFile, renderSidecar, requestBytes, setField, validJson, type FuzzContext, type FuzzRequest, type HostileFile, type SidecarChoice } from '../support/request-fuzz.js';

/**
 * Nothing a client sends takes the API down, gets a 5xx, or leaves a temp file or a descriptor behind (issue 18).
 * The web role runs as its own process (api/main.ts); requests go over raw sockets so that they can be malformed,
 * truncated and abandoned. First the issue's reproductions, then fast-check's random damage to every operation of the
 * served OpenAPI document.
 *
 *   FUZZ_SEED=<n>       replays a run (the seed is printed at the start)
 *   FUZZ_RUNS=<n>       number of random cases (default 300)
 *   FUZZ_BUDGET_MS=<n>  stop generating cases after this long (default 60000)
 *   FUZZ_DUMP_DIR=<dir> writes the raw request of each finding there
 *
 * A 503 is accepted only as `verification_busy` with Retry-After (the answer of a saturated verification pool, on any
 * route that verifies), or from an operation whose OpenAPI description lists 503 (e.g. issuance_pending while the
 * scheduler issues a certificate; no_signing_certificate before an organisation's first signature): what a client is
 * told to expect and retry. The run prints how many of each it accepted. Every other 5xx is a finding.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = (name: string) => readFileSync(path.join(ROOT, 'test/fixtures', name));

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 60_000);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

interface Finding {
  route: string;
  problem: string;
  input: string;
  case: string;
  detail?: string;
  raw?: Buffer;
}

/** Groups findings by route and kind of problem: one line each, with the first input that showed it. */
function report(findings: Finding[]): string {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = `${f.route} | ${f.problem}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const lines = [...groups.entries()].map(([key, list]) => {
    const first = list[0]!;
    return `- ${key} (x${list.length})\n    input: ${first.input}\n    case: ${first.case}${first.detail ? `\n    ${first.detail}` : ''}`;
  });
  return `${groups.size} distinct finding(s), ${findings.length} in all:\n${lines.join('\n')}`;
}

/** The problem with an answer, if any: a 5xx, an error without the JSON shape, no answer to a complete request. */
function judge(req: Pick<FuzzRequest, 'complete' | 'transport'>, outcome: RawOutcome, op?: Pick<Operation, 'statuses'>): string | undefined {
  if (outcome.refused) return 'connection refused: the API process is down';
  if (outcome.garbage) return `an answer that is not HTTP: ${JSON.stringify(outcome.garbage.subarray(0, 60).toString('latin1'))}`;
  const res = outcome.response;
  if (!res) {
    if (!req.complete || req.transport.kind !== 'full') return undefined;
    return outcome.timedOut ? 'no answer to a complete request in time' : 'connection closed without an answer';
  }
  if (res.status < 400) return undefined;
  let body: { error?: { code?: unknown; message?: unknown } } | undefined;
  try {
    body = JSON.parse(res.body.toString('utf8')) as typeof body;
  } catch {
    body = undefined;
  }
  const code = body?.error?.code;
  if (typeof code !== 'string' || typeof body?.error?.message !== 'string') {
    return `${res.status} without the JSON error shape: ${JSON.stringify(res.body.subarray(0, 80).toString('latin1'))}`;
  }
  if (res.status === 503 && code === 'verification_busy' && res.headers['retry-after']) return undefined;
  if (res.status === 503 && op?.statuses.includes('503')) return undefined;
  if (res.status >= 500) return `${res.status} ${code}`;
  return undefined;
}

describe('hostile requests against the API process (fuzzed)', function () {
  this.timeout(120_000);

  let db: TestDatabase;
  let dataDir: string;
  let port: number;
  let env: Record<string, string>;
  let api: RoleProcess;
  let exitedAt: number | undefined;
  let doc: OpenApiDoc;
  let ops: Operation[];
  let ctx: FuzzContext;
  let admin: { email: string; password: string };
  let issuer: IssuanceJob | undefined;
  let hostile: HostileMedia | undefined;
  const poolPorts = new Set<number>();

  const tmpDir = () => path.join(dataDir, 'tmp');
  const tmpFiles = (): string[] => {
    try {
      return readdirSync(tmpDir());
    } catch {
      return [];
    }
  };
  const base = () => `http://127.0.0.1:${port}`;

  async function call(method: string, p: string, opts: { token?: string; json?: unknown; form?: FormData } = {}) {
    const headers: Record<string, string> = {};
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    let body: string | FormData | undefined;
    if (opts.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.form) body = opts.form;
    const res = await fetch(base() + p, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  async function start() {
    exitedAt = undefined;
    api = await startApiProcess(env);
    api.child.once('exit', () => (exitedAt = Date.now()));
  }

  /**
   * Restarts the API when it died, and says so with the temp files the dead process left (removed here, so that
   * later checks see only what the new process does).
   */
  async function ensureUp(): Promise<{ died: boolean; left: string[] }> {
    await delay(20);
    if (api.child.exitCode === null && api.child.signalCode === null) return { died: false, left: [] };
    const left = tmpFiles();
    rmSync(tmpDir(), { recursive: true, force: true });
    await start();
    return { died: true, left };
  }

  /**
   * Descriptors the API holds that are not pooled connections to Postgres or Redis, and those its child processes (the
   * verification pool) hold on DATA_DIR: the pool's members come and go, but none may keep an upload open.
   */
  const ownDescriptors = (): Descriptor[] => [
    ...openDescriptors(api.child.pid!).filter((d) => !(d.tcp && poolPorts.has(d.tcp.remotePort))),
    ...descendantFilesUnder(api.child.pid!, dataDir),
  ];

  /** Waits (up to `ms`) until the API holds no more descriptors than `before` and DATA_DIR/tmp is empty. */
  async function settled(before: Set<string>, ms = 10_000): Promise<{ extra: Descriptor[]; tmp: string[] }> {
    const until = Date.now() + ms;
    for (;;) {
      const extra = ownDescriptors().filter((d) => !before.has(d.target));
      const tmp = tmpFiles();
      if ((extra.length === 0 && tmp.length === 0) || Date.now() > until) return { extra, tmp };
      await delay(100);
    }
  }

  const describeFd = (d: Descriptor) => (d.tcp ? `${d.target} (local port ${d.tcp.localPort}, remote port ${d.tcp.remotePort})` : d.target);

  async function login(): Promise<string> {
    const res = await call('POST', '/auth/login', { json: admin });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.access_token as string;
  }

  before(async function () {
    this.timeout(120_000);
    db = await createTestDatabase();
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-fuzz-'));
    port = await freePort();
    for (const url of [db.url, TEST_REDIS_URL]) poolPorts.add(Number(new URL(url).port || (url.startsWith('redis') ? 6379 : 5432)));
    env = hostileTrafficEnv({ databaseUrl: db.url, redisUrl: TEST_REDIS_URL, dataDir, port, queuePrefix: `test-fuzz-${process.pid}` });
    // Signing needs the service's CA chain (the vault keys live under DATA_DIR, shared with the process).
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
    await initPki({ knex: db.knex, vault: createKeyVault(config), config });
    // As in every deployment, the scheduler's certificate issuance runs beside the API (organisations' certificates).
    issuer = startIssuanceJob({ knex: db.knex, vault: createKeyVault(config), config }, createLogger('silent', 'issuance'));
    await start();

    // A registered organisation with the things valid requests name: an upload, a job, a template, a victim user,
    // a victim API key and a victim session (whose refresh token the fuzzer may spend or revoke).
    admin = { email: `fuzz-admin-${Date.now()}@example.com`, password: 'a long enough passphrase' };
    const reg = await call('POST', '/auth/register', { json: { ...admin, org_name: 'Fuzz Org' } });
    expect(reg.status, JSON.stringify(reg.body)).to.equal(201);
    const access = reg.body.access_token as string;
    const key = await call('POST', '/org/api-keys', { token: access, json: { name: 'fuzz' } });
    const victimKey = await call('POST', '/org/api-keys', { token: access, json: { name: 'victim' } });
    const victim = { email: `fuzz-victim-${Date.now()}@example.com`, password: 'a long enough passphrase', role: 'signer' };
    const victimUser = await call('POST', '/org/users', { token: access, json: victim });
    const victimSession = await call('POST', '/auth/login', { json: { email: victim.email, password: victim.password } });
    const jpeg = fixture('small.jpg');
    const form = new FormData();
    form.append('file', new Blob([jpeg], { type: 'image/jpeg' }), 'small.jpg');
    const upload = await call('POST', '/v1/media/upload', { token: access, form });
    expect(upload.status, JSON.stringify(upload.body)).to.equal(201);
    const template = await call('POST', '/v1/manifest-templates', { token: access, json: { name: 'fuzz template', manifest: { creator: 'Fuzz' } } });
    const job = await call('POST', '/v1/media/sign', { token: access, json: { upload_id: upload.body.upload_id, manifest: { title: 'fuzz', creator: 'Fuzz' } } });
    for (const r of [key, victimKey, victimUser, victimSession, template, job]) expect(r.status, JSON.stringify(r.body)).to.be.within(200, 202);

    doc = (await call('GET', '/openapi.json')).body as unknown as OpenApiDoc;
    ops = operationsOf(doc);
    ctx = {
      port,
      access,
      apiKey: key.body.key as string,
      known: {
        job_id: job.body.job_id as string,
        template_id: template.body.template_id as string,
        version: '1',
        user_id: victimUser.body.user_id as string,
        key_id: victimKey.body.key_id as string,
        sha256: createHash('sha256').update(jpeg).digest('hex'),
      },
      fieldValues: {
        upload_id: upload.body.upload_id as string,
        template_id: template.body.template_id as string,
        refresh_token: victimSession.body.refresh_token as string,
        alg: 'io.iscc.v0',
        value: softBindingValue(encodeImageCode(randomBytes(8))),
      },
      files: [
        { name: 'small.jpg', type: 'image/jpeg', bytes: jpeg },
        { name: 'graphic.png', type: 'image/png', bytes: fixture('graphic.png') },
        { name: 'photo.jpg', type: 'image/jpeg', bytes: fixture('photo.jpg') },
        { name: 'tiny.gif', type: 'image/gif', bytes: fixture('tiny.gif') },
        { name: 'tiny.webp', type: 'image/webp', bytes: fixture('tiny.webp') },
      ],
      // Box soups, nested boxes and sidecar stores for the sidecar path; JPEGs naming remote manifests for the remote one.
      hostile: (hostile = await makeHostileMedia(dataDir)),
    };
  });

  after(async function () {
    this.timeout(60_000);
    if (api && api.child.exitCode === null) await api.stop();
    await issuer?.stop();
    hostile?.cleanup();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(async function () {
    if (!api || !db) return;
    await ensureUp();
  });

  /** Sends a request as raw bytes and reads the answer (Connection: close). */
  function raw(method: string, target: string, headers: Array<[string, string]>, body: Buffer = Buffer.alloc(0)) {
    const all: Array<[string, string]> = [['Host', `127.0.0.1:${port}`], ['Connection', 'close'], ...headers];
    if (body.length || method !== 'GET') all.push(['Content-Length', String(body.length)]);
    return sendRaw(port, requestBytes({ method, target, headers: all, body }), { kind: 'full' }, 20_000);
  }

  const authHeaders = (op: Operation): Array<[string, string]> => (op.secured ? [['Authorization', `Bearer ${ctx.access}`]] : []);
  const multipartOps = () => ops.filter((o) => o.bodyTypes.includes('multipart/form-data'));

  it('enumerates every operation of the served document, the multipart and JSON ones among them', () => {
    expect(ops.length).to.be.greaterThan(30);
    expect(multipartOps().map((o) => `${o.method} ${o.path}`)).to.include.members(['POST /v1/verify', 'POST /v1/media/upload', 'POST /v1/media/verify', 'POST /v1/matches/byContent']);
    expect(ops.filter((o) => o.jsonSchema).map((o) => `${o.method} ${o.path}`)).to.include.members(['POST /auth/login', 'POST /v1/media/sign', 'PATCH /org']);
  });

  it('a multipart file part that never reaches its closing boundary is 400 malformed_multipart on every multipart route (issue 18, 1)', async () => {
    const body = Buffer.concat([
      Buffer.from('--XX\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'),
      Buffer.from([0xff, 0xd8, 0xff]),
    ]);
    const problems: string[] = [];
    for (const op of multipartOps()) {
      const before = new Set(ownDescriptors().map((d) => d.target));
      const outcome = await raw(op.method, op.path, [...authHeaders(op), ['Content-Type', 'multipart/form-data; boundary=XX']], body);
      const { died, left } = await ensureUp();
      const route = `${op.method} ${op.path}`;
      if (died) problems.push(`${route}: the API process died (${left.length} temp file(s) left)`);
      else {
        const res = outcome.response;
        const code = res ? (JSON.parse(res.body.toString() || '{}') as { error?: { code?: string } }).error?.code : undefined;
        if (res?.status !== 400 || code !== 'malformed_multipart') problems.push(`${route}: ${res ? `${res.status} ${res.body.toString().slice(0, 100)}` : 'no answer'}`);
        const { extra, tmp } = await settled(before);
        if (tmp.length) problems.push(`${route}: temp files left: ${tmp.join(', ')}`);
        if (extra.length) problems.push(`${route}: descriptors left: ${extra.map(describeFd).join(', ')}`);
      }
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('a client that disconnects mid-upload leaves no temp file and no descriptor (issue 18, 2)', async () => {
    const problems: string[] = [];
    for (const op of multipartOps()) {
      const route = `${op.method} ${op.path}`;
      const before = new Set(ownDescriptors().map((d) => d.target));
      const head = Buffer.from('--XX\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n');
      const declared = 8 * 1024 * 1024;
      const lines = [`${op.method} ${op.path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Content-Type: multipart/form-data; boundary=XX', `Content-Length: ${declared}`];
      if (op.secured) lines.push(`Authorization: Bearer ${ctx.access}`);
      const socket = net.connect({ port, host: '127.0.0.1' });
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      socket.write(head);
      socket.write(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(1024 * 1024)]));
      // The upload is under way once its temp file exists; then the client vanishes.
      const until = Date.now() + 5_000;
      while (tmpFiles().length === 0 && Date.now() < until) await delay(20);
      const staged = tmpFiles().length > 0;
      socket.destroy();
      const { died, left } = await ensureUp();
      if (died) {
        problems.push(`${route}: the API process died (${left.length} temp file(s) left)`);
        continue;
      }
      if (!staged) problems.push(`${route}: no temp file appeared while 1 MiB of the file was sent (nothing staged?)`);
      const { extra, tmp } = await settled(before);
      if (tmp.length) problems.push(`${route}: temp files left: ${tmp.join(', ')}`);
      if (extra.length) problems.push(`${route}: descriptors left: ${extra.map(describeFd).join(', ')}`);
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('a body with more than one part named "file" is refused and leaves no temp file (found by the fuzzer, seed 2143436417)', async () => {
    const jpeg = ctx.files[0]!.bytes;
    const part = (filename: string, type: string, content: Buffer) =>
      Buffer.concat([Buffer.from(`--XX\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`, 'latin1'), content, Buffer.from('\r\n')]);
    const bodies = {
      'an empty file part, then two more': Buffer.concat([part('\u0014\u0002\u0005\xf3\xad\x87\x99', 'image/svg+xml', Buffer.alloc(0)), part('extra0.jpg', 'image/jpeg', jpeg), part('extra1.jpg', 'image/jpeg', jpeg), Buffer.from('--XX--\r\n')]),
      'a file part, then another': Buffer.concat([part('a.jpg', 'image/jpeg', jpeg), part('b.jpg', 'image/jpeg', jpeg), Buffer.from('--XX--\r\n')]),
    };
    const problems: string[] = [];
    for (const op of multipartOps()) {
      for (const [what, body] of Object.entries(bodies)) {
        const before = new Set(ownDescriptors().map((d) => d.target));
        for (let i = 0; i < 3; i += 1) {
          const outcome = await raw(op.method, op.path, [...authHeaders(op), ['Content-Type', 'multipart/form-data; boundary=XX']], body);
          const problem = judge({ complete: true, transport: { kind: 'full' } }, outcome, op) ?? (outcome.response?.status === 400 ? undefined : `${outcome.response?.status ?? 'no answer'}`);
          if (problem) problems.push(`${op.method} ${op.path}, ${what}: ${problem}`);
        }
        if ((await ensureUp()).died) problems.push(`${op.method} ${op.path}, ${what}: the API process died`);
        const { extra, tmp } = await settled(before, 3_000);
        if (tmp.length) problems.push(`${op.method} ${op.path}, ${what} (x3): temp files left: ${tmp.length}`);
        if (extra.length) problems.push(`${op.method} ${op.path}, ${what} (x3): descriptors left: ${extra.map(describeFd).join(', ')}`);
        rmSync(tmpDir(), { recursive: true, force: true });
      }
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('box soups, deep nesting, hostile sidecars and remote manifests get a verdict or a 4xx on both verify routes, never a 5xx', async function () {
    this.timeout(180_000);
    const files: HostileFile[] = [
      { kind: 'soup', count: 2_000, size: 8, type: 'junk' },
      { kind: 'soup', count: 10_001, size: 8, type: 'free' },
      { kind: 'soup', count: 600_000, size: 4, type: 'junk' },
      { kind: 'nested', depth: 40, count: 10 },
      { kind: 'nested', depth: 6, count: 3_000 },
      ...ctx.hostile!.remoteFiles.map((_, pick): HostileFile => ({ kind: 'remote', pick })),
    ];
    const manifests: (SidecarChoice | null)[] = [null, ...ctx.hostile!.sidecars.map((_, pick): SidecarChoice => ({ kind: 'store', pick })), { kind: 'truncated', pick: 0, at: 0.5 }];
    const problems: string[] = [];
    const seen = new Map<string, number>();
    for (const h of files) {
      const file = renderHostileFile(ctx.hostile!, h);
      for (const m of manifests) {
        const sidecar = m && renderSidecar(ctx.hostile!, m);
        const parts = [Buffer.from(`--XX\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`), file.bytes, Buffer.from('\r\n')];
        if (sidecar) parts.push(Buffer.from('--XX\r\nContent-Disposition: form-data; name="manifest"; filename="s.c2pa"\r\nContent-Type: application/c2pa\r\n\r\n'), sidecar.bytes, Buffer.from('\r\n'));
        parts.push(Buffer.from('--XX--\r\n'));
        for (const op of multipartOps().filter((o) => /verify$/.test(o.path))) {
          const outcome = await raw(op.method, op.path, [...authHeaders(op), ['Content-Type', 'multipart/form-data; boundary=XX']], Buffer.concat(parts));
          const what = `${op.method} ${op.path}, ${file.summary}${sidecar ? `, ${sidecar.summary}` : ''}`;
          const problem = (await ensureUp()).died ? 'the API process died' : judge({ complete: true, transport: { kind: 'full' } }, outcome, op);
          if (problem) problems.push(`${what}: ${problem}`);
          const res = outcome.response;
          const answer = res ? `${res.status} ${res.status === 200 ? (JSON.parse(res.body.toString()) as { validation_state: string }).validation_state : (JSON.parse(res.body.toString()) as { error: { code: string } }).error.code}` : 'no answer';
          seen.set(answer, (seen.get(answer) ?? 0) + 1);
          if (h.kind === 'soup' && h.count > 10_000 && answer !== '422 media_too_complex') problems.push(`${what}: ${answer}, not 422 media_too_complex`);
          if (h.kind === 'soup' && h.count === 2_000 && m?.kind === 'store' && m.pick === 1 && !(res?.status === 200 && res.body.toString().includes('assertion.bmffHash.malformed'))) {
            problems.push(`${what}: ${answer}, not Invalid with assertion.bmffHash.malformed`);
          }
        }
      }
    }
    // eslint-disable-next-line no-console
    console.log(`      hostile bodies: ${[...seen].map(([a, n]) => `${a} x${n}`).join(', ')}`);
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('verifying each sample format leaves no temp file and no descriptor, in the API or its verification pool (found by the fuzzer: WebP)', async () => {
    const problems: string[] = [];
    for (const file of ctx.files) {
      const before = new Set(ownDescriptors().map((d) => d.target));
      const outcome = await raw('POST', '/v1/verify', [['Content-Type', file.type]], file.bytes);
      if (outcome.response?.status !== 200) problems.push(`${file.name}: ${outcome.response?.status ?? 'no answer'} ${outcome.response?.body.toString().slice(0, 100) ?? ''}`);
      const { extra, tmp } = await settled(before, 3_000);
      if (tmp.length) problems.push(`${file.name}: temp files left: ${tmp.join(', ')}`);
      if (extra.length) problems.push(`${file.name}: descriptors left: ${extra.map(describeFd).join(', ')}`);
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  /** Each JSON string field of each operation, with NUL or a lone surrogate inside its valid value; sent once. */
  interface TextProbe {
    what: string;
    leaf: string;
    outcome: RawOutcome;
    died: boolean;
    op: Operation;
  }
  let textSweep: Promise<TextProbe[]> | undefined;
  const sweepText = () =>
    (textSweep ??= (async () => {
      const probes: TextProbe[] = [];
      for (const op of ops.filter((o) => o.jsonSchema)) {
        for (const field of stringFields(op.jsonSchema!)) {
          for (const bad of ['\u0000', '\ud800']) {
            const valid = validJson(doc, op.jsonSchema!, ctx);
            const value = String(getField(valid, field) ?? '');
            const body = setField(valid, field, `${value.slice(0, 1)}${bad}${value.slice(1)}`);
            const target = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => ctx.known[name] ?? '00000000-0000-4000-8000-000000000000');
            const outcome = await raw(op.method, target, [...authHeaders(op), ['Content-Type', 'application/json']], Buffer.from(JSON.stringify(body)));
            const { died } = await ensureUp();
            const what = `${op.method} ${op.path} ${field.join('.')} with ${JSON.stringify(bad)}`;
            probes.push({ what, leaf: field.filter((f) => !/^\d+$/.test(f)).pop()!, outcome, died, op });
          }
        }
      }
      return probes;
    })());

  it('NUL and lone surrogates in every JSON string field get no 5xx and the JSON error shape (issue 18, 4)', async function () {
    this.timeout(180_000);
    const probes = await sweepText();
    expect(probes.length).to.be.greaterThan(50);
    const problems = probes.flatMap((p) => {
      const problem = p.died ? 'the API process died' : judge({ complete: true, transport: { kind: 'full' } }, p.outcome, p.op);
      return problem ? [`${p.what}: ${problem}`] : [];
    });
    expect(problems, `${problems.length} of ${probes.length}:\n${problems.join('\n')}`).to.deep.equal([]);
  });

  it('NUL and lone surrogates in every JSON string field are 400 naming the field (issue 18, what to build 4)', async function () {
    this.timeout(180_000);
    const probes = await sweepText();
    const problems = probes.flatMap((p) => {
      const res = p.outcome.response;
      const text = res?.body.toString('utf8') ?? '';
      return res?.status === 400 && text.includes(p.leaf) ? [] : [`${p.what}: ${res ? `${res.status} ${text.slice(0, 120)}` : 'no answer'}`];
    });
    expect(problems, `${problems.length} of ${probes.length}:\n${problems.join('\n')}`).to.deep.equal([]);
  });

  it('NUL, lone surrogates and broken escapes in every path and query parameter get no 5xx and the JSON error shape', async function () {
    this.timeout(120_000);
    const problems: string[] = [];
    for (const op of ops) {
      const params = op.parameters.filter((p) => p.in === 'path' || p.in === 'query');
      for (const p of params) {
        for (const bad of ['a%00b', '%ED%A0%80', '%zz', 'a%C0%80']) {
          let target = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === p.name ? bad : encodeURIComponent(ctx.known[name] ?? '00000000-0000-4000-8000-000000000000')));
          if (p.in === 'query') target += `?${p.name}=${bad}`;
          const body = op.jsonSchema ? Buffer.from(JSON.stringify(validJson(doc, op.jsonSchema, ctx))) : Buffer.alloc(0);
          const outcome = await raw(op.method, target, [...authHeaders(op), ['Content-Type', 'application/json']], body);
          const { died } = await ensureUp();
          const problem = died ? 'the API process died' : judge({ complete: true, transport: { kind: 'full' } }, outcome, op);
          if (problem) problems.push(`${op.method} ${target}: ${problem}`);
        }
      }
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('a 100 KB URL and a 20 KB header are answered with the JSON error shape on the API port (issue 18, also seen)', async () => {
    const longUrl = await raw('GET', `/health?q=${'a'.repeat(100 * 1024)}`, []);
    const bigHeader = await raw('GET', '/health', [['X-Big', 'b'.repeat(20 * 1024)]]);
    const problems = [
      ['100 KB URL', longUrl],
      ['20 KB header', bigHeader],
    ].flatMap(([what, outcome]) => {
      const o = outcome as RawOutcome;
      const problem = judge({ complete: true, transport: { kind: 'full' } }, o) ?? (o.response && o.response.status < 400 ? `${o.response.status}: accepted` : undefined);
      return problem ? [`${what as string}: ${problem}`] : [];
    });
    expect(problems, problems.join('\n')).to.deep.equal([]);
    expect(api.child.exitCode).to.equal(null);
  });

  it(`random damage to requests of every operation (${RUNS} cases, seed printed; FUZZ_SEED replays)`, async function () {
    this.timeout(BUDGET_MS + 120_000);
    // eslint-disable-next-line no-console
    console.log(`      request fuzz: seed ${SEED}, ${RUNS} cases (replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS})`);
    const cases = fc.sample(fuzzCase(ops.length), { seed: SEED, numRuns: RUNS });
    const findings: Finding[] = [];
    const accepted503: string[] = [];

    const ran: Array<{ req: FuzzRequest; startedAt: number; endedAt: number; requestId: string }> = [];
    // One valid request per operation first, so that lazily made pools and connections exist before the baseline;
    // a temp file or a descriptor of DATA_DIR they leave is a finding all the same.
    const beforeWarmup = new Set(ownDescriptors().map((d) => d.target));
    for (const op of ops) {
      const valid = { ...cases[0]!, multipart: { ...cases[0]!.multipart, hostile: null, manifest: null }, op: ops.indexOf(op), auth: 'jwt' as const, body: 'declared' as const, json: { kind: 'valid' as const }, bytes: { kind: 'none' as const }, headers: [], params: [{ kind: 'valid' as const }, { kind: 'valid' as const }, { kind: 'valid' as const }, { kind: 'valid' as const }], extraQuery: [], transport: { kind: 'full' as const } };
      const requestId = `fuzz-warmup-${ran.length}`;
      const req = buildRequest(doc, op, valid, ctx, requestId);
      const startedAt = Date.now();
      const outcome = await sendRaw(port, requestBytes(req), req.transport, 20_000);
      ran.push({ req, startedAt, endedAt: Date.now(), requestId });
      const problem = judge(req, outcome, op);
      if (problem) findings.push({ route: req.route, problem, input: 'a valid request', case: requestId });
      if (outcome.response?.status === 503) accepted503.push(`${req.route} ${outcome.response.body.toString().slice(0, 60)}`);
      for (const d of ownDescriptors()) {
        if (beforeWarmup.has(d.target)) continue;
        beforeWarmup.add(d.target);
        if (d.target.startsWith(dataDir)) findings.push({ route: req.route, problem: 'a descriptor left open', input: 'a valid request', case: requestId, detail: d.target });
      }
      for (const f of tmpFiles()) findings.push({ route: req.route, problem: 'a temp file left in DATA_DIR/tmp', input: 'a valid request', case: requestId, detail: f });
      rmSync(tmpDir(), { recursive: true, force: true });
    }
    ctx.access = await login();
    const warmups = ran.length;
    let baseline = new Set(ownDescriptors().map((d) => d.target));
    const fdFirstSeen = new Map<string, { index: number; fd: Descriptor }>();
    const tmpFirstSeen = new Map<string, number>();

    const record = (index: number, problem: string, detail?: string, route?: string) => {
      const { req, requestId } = ran[index]!;
      findings.push({ route: route ?? req.route, problem, input: req.summary.join('; '), case: `#${index - warmups} (${requestId})`, ...(detail ? { detail } : {}), raw: requestBytes(req) });
    };
    /** The API's own log of a request that failed: the error message behind a 5xx. */
    const serverError = (requestId: string): string | undefined => {
      const line = api.output().split('\n').find((l) => l.includes(`"${requestId}"`) && /"level":(50|60)/.test(l));
      if (!line) return undefined;
      try {
        const parsed = JSON.parse(line) as { err?: { type?: string; message?: string }; msg?: string };
        return `server log: ${parsed.msg ?? ''} ${parsed.err ? `${parsed.err.type ?? ''}: ${parsed.err.message ?? ''}` : ''}`.trim();
      } catch {
        return `server log: ${line.slice(0, 200)}`;
      }
    };

    const started = Date.now();
    for (let i = 0; i < cases.length; i += 1) {
      if (Date.now() - started > BUDGET_MS) break;
      const c = cases[i]!;
      const op = ops[c.op]!;
      const requestId = `fuzz-${SEED}-${i}`;
      const req = buildRequest(doc, op, c, ctx, requestId);
      const startedAt = Date.now();
      const outcome = await sendRaw(port, requestBytes(req), req.transport, req.complete ? 20_000 : 3_000);
      const index = ran.push({ req, startedAt, endedAt: Date.now(), requestId }) - 1;
      const problem = judge(req, outcome, op);
      if (!problem && outcome.response?.status === 503) accepted503.push(`${req.route} ${outcome.response.body.toString().slice(0, 60)}`);
      // Node's parser answers before any route (and without the request id Express sets): one finding, not one per route.
      const byParser = outcome.response !== undefined && outcome.response.headers['x-request-id'] === undefined;
      if (problem && !outcome.refused) record(index, problem, problem.startsWith('5') ? serverError(requestId) : undefined, byParser ? '(any route: refused by the HTTP parser)' : undefined);

      // A crash: blamed on the case during or just before which the process exited.
      await delay(0);
      if (exitedAt !== undefined || outcome.refused) {
        await delay(200);
        const at = exitedAt ?? Date.now();
        const culprit = Math.max(warmups, ran.findLastIndex((r) => r.startedAt <= at));
        const output = api.output();
        const reason = output.slice(output.lastIndexOf('\n', Math.max(0, output.search(/\n(Error|node:|.*"level":60)/))) + 1).split('\n').slice(0, 4).join(' | ');
        const { left } = await ensureUp();
        record(culprit, 'the API process died', `${reason.slice(0, 400)}${left.length ? ` | ${left.length} temp file(s) left in DATA_DIR/tmp` : ''}`);
        baseline = new Set(ownDescriptors().map((d) => d.target));
        fdFirstSeen.clear();
        tmpFirstSeen.clear();
        ctx.access = await login();
        continue;
      }

      for (const d of ownDescriptors()) if (!baseline.has(d.target) && !fdFirstSeen.has(d.target)) fdFirstSeen.set(d.target, { index, fd: d });
      for (const f of tmpFiles()) if (!tmpFirstSeen.has(f)) tmpFirstSeen.set(f, index);
      // The fuzzer may sign the session out (logout, refresh-token reuse...): sign in again after the auth routes.
      if (op.path.startsWith('/auth/') || i % 25 === 24) {
        const me = await call('GET', '/auth/me', { token: ctx.access });
        if (me.status === 401) ctx.access = await login();
      }
    }
    const elapsed = Date.now() - started;

    const { extra, tmp } = await settled(baseline);
    for (const f of tmp) {
      const index = tmpFirstSeen.get(f);
      if (index !== undefined) record(index, 'a temp file left in DATA_DIR/tmp', f);
    }
    for (const d of extra) {
      const seen = fdFirstSeen.get(d.target);
      if (seen) record(seen.index, 'a descriptor left open', describeFd(d));
    }
    const health = await call('GET', '/health');
    // eslint-disable-next-line no-console
    console.log(`      request fuzz: ${ran.length - warmups} cases against ${ops.length} operations in ${(elapsed / 1000).toFixed(1)} s (seed ${SEED}); documented 503s accepted: ${accepted503.length}`);

    if (process.env.FUZZ_DUMP_DIR) {
      mkdirSync(process.env.FUZZ_DUMP_DIR, { recursive: true });
      findings.forEach((f, n) => f.raw && writeFileSync(path.join(process.env.FUZZ_DUMP_DIR!, `${n}-${f.case.replace(/\W+/g, '_')}.http`), f.raw!));
    }
    expect(health.status, 'the API answers /health after the run').to.equal(200);
    expect(findings.length, `seed ${SEED}: ${report(findings)}`).to.equal(0);
  });
});
