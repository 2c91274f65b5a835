/**
 * What a kill -9 leaves in DATA_DIR (a partial upload in tmp/, a sign job's directory in signing/) is gone after the
 * next start of the API and of the worker; what live processes on the host are writing stays.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { registerAccount, startTestApi, type TestApi } from '../support/api.js';
import { startRole, startTestWorker, type RoleProcess } from '../support/processes.js';

describe('leftovers of killed processes are removed at the next start', function () {
  this.timeout(120_000);
  let api: TestApi;
  let web: RoleProcess | undefined;
  let worker: RoleProcess | undefined;
  let port: number;

  const webRole = () =>
    startRole('api/main.ts', {
      NODE_ENV: 'test',
      DATABASE_URL: api.db.url,
      REDIS_URL: api.config.redisUrl,
      QUEUE_PREFIX: api.config.queuePrefix,
      DATA_DIR: api.config.dataDir,
      JWT_SECRET: api.config.jwtSecret,
      PORT: String(port),
      OPS_PORT: '0',
      LOG_LEVEL: 'info',
    }, /API listening/);

  before(async () => {
    api = await startTestApi();
    const server = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as net.AddressInfo).port;
    await new Promise((r) => server.close(r));
  });
  after(async () => {
    await web?.stop();
    await worker?.stop();
    await api.close();
  });

  it('a partial upload of a web process killed with SIGKILL is removed when the web role starts again', async () => {
    const account = await registerAccount(api.app, 'Killed');
    web = await webRole();
    const tmp = path.join(api.config.dataDir, 'tmp');
    // An upload that declares 8 MB, sends 1 MiB and stays open.
    const socket = net.connect(port, '127.0.0.1');
    const head = `--XX\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
    socket.write(`POST /v1/media/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.access}\r\nContent-Type: multipart/form-data; boundary=XX\r\nContent-Length: 8000000\r\n\r\n${head}`);
    socket.write(Buffer.alloc(1024 * 1024, 0xff));
    socket.on('error', () => undefined);
    for (let i = 0; i < 100 && !(existsSync(tmp) && readdirSync(tmp).length > 0); i += 1) await new Promise((r) => setTimeout(r, 50));
    const staged = readdirSync(tmp);
    expect(staged).to.have.length(1);
    await web.kill();
    socket.destroy();
    expect(readdirSync(tmp)).to.deep.equal(staged);
    // Another live process's staged file on the same DATA_DIR stays.
    const live = `p${process.pid}-still-writing`;
    writeFileSync(path.join(tmp, live), 'x');
    web = await webRole();
    expect(readdirSync(tmp)).to.deep.equal([live]);
  });

  it("a sign job's directory of a worker killed mid-job is removed when a worker starts", async () => {
    const signing = path.join(api.config.dataDir, 'signing');
    const dead = spawnSync('true').pid!;
    const left = path.join(signing, `p${dead}-sign-0b7c3f6e-aaaa-4bbb-8ccc-000000000001-Xy12ab`);
    mkdirSync(left, { recursive: true });
    writeFileSync(path.join(left, 'source'), Buffer.alloc(1024));
    worker = await startTestWorker(api, 'http://127.0.0.1:9');
    expect(readdirSync(signing)).to.deep.equal([]);
  });
});
