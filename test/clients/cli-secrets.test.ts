/**
 * mss never prints an API key it was given, however many times --api-key comes (it uses the last): against a local
 * stand-in service that echoes the key it receives in its refusal, and through the CLI's own messages.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { RUN_MARK } from '../support/run-mark.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(ROOT, 'clients/typescript/src/cli.ts');

interface Run {
  code: number | null;
  output: string;
}

function mss(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', [RUN_MARK]: process.env[RUN_MARK] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}

describe('mss: every --api-key is kept out of its output', function () {
  this.timeout(60_000);
  const first = `svc_sk_live_${'a'.repeat(43)}`;
  const second = `svc_sk_live_${'b'.repeat(43)}`;
  const received: string[] = [];
  // A service that refuses every key, naming it (as a careless proxy might).
  const server = http.createServer((req, res) => {
    const key = String(req.headers['x-api-key']);
    received.push(key);
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'invalid_api_key', message: `no such key: ${key}` } }));
  });
  let url: string;

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('uses the last of two keys and prints neither, not even when the service echoes the one it got', async () => {
    const run = await mss(['jobs', '--api-key', first, `--api-key=${second}`, '--url', url]);
    expect(received.at(-1)).to.equal(second);
    expect(run.code).to.equal(1);
    expect(run.output).to.include('invalid_api_key').and.include('no such key: [api key]');
    expect(run.output).to.not.include(first).and.not.include(second);
  });

  it('blanks every key in its own messages, a key that begins another included, and MSS_API_KEY', async () => {
    const longer = `${first}zz`;
    const env = `svc_sk_live_${'e'.repeat(43)}`;
    for (const args of [
      [second, '--api-key', first, '--api-key', second],
      [longer, `--api-key=${first}`, '--api-key', longer],
      [env, '--api-key', first],
    ]) {
      const run = await mss(args, { MSS_API_KEY: env });
      expect(run.code, run.output).to.equal(2);
      expect(run.output).to.match(/unknown command \[api key\]/);
      for (const key of [first, second, longer, env, 'zz']) expect(run.output, key).to.not.include(key);
    }
  });
});
