/**
 * The TSA over HTTP against real clients: `openssl ts -query`, curl (--data-binary, as an operator would), and
 * `openssl ts -verify` / `openssl ts -reply -text` judging the replies. The TSA certificate chain is issued by
 * the project's own certificate code.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { issueTestChain, openssl, tempDir, type TestChain } from '../pki/helpers.js';
import { startTestTsa, TEST_POLICY, tsaIdentityOf, type RunningTsa } from './support.js';

interface CurlResult {
  httpStatus: number;
  contentType: string;
}

/** POSTs a file with curl, writing the body to `out`. */
function curl(url: string, args: string[], out: string): Promise<CurlResult> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-s', '-o', out, '-w', '%{http_code} %{content_type}', ...args, url], (err, stdout) => {
      if (err) return reject(err);
      const [status, type] = stdout.trim().split(' ');
      resolve({ httpStatus: Number(status), contentType: type ?? '' });
    });
  });
}

describe('tsa: RFC 3161 over HTTP with openssl ts and curl', function () {
  const tmp = tempDir('tsa-interop-');
  const f = (name: string) => path.join(tmp.dir, name);
  let chain: TestChain;
  let tsa: RunningTsa;

  before(async function () {
    chain = await issueTestChain(tmp.dir);
    tsa = await startTestTsa(tsaIdentityOf(chain));
    writeFileSync(f('data.txt'), 'the bytes to stamp\n');
  });
  after(async function () {
    await tsa?.close();
    tmp.cleanup();
  });

  const query = (name: string, args: string[]) => openssl(['ts', '-query', '-data', f('data.txt'), ...args, '-out', f(name)]);
  const post = (queryFile: string, reply: string, extra: string[] = []) =>
    curl(tsa.url, ['-H', 'Content-Type: application/timestamp-query', '--data-binary', `@${f(queryFile)}`, ...extra], f(reply));
  const replyText = async (reply: string) => (await openssl(['ts', '-reply', '-in', f(reply), '-text'])).stdout;
  const verifyArgs = (reply: string, extra: string[]) => ['ts', '-verify', '-in', f(reply), ...extra, '-CAfile', chain.file('root.pem'), '-untrusted', chain.file('sub-ca.pem')];

  it('openssl ts -query | curl --data-binary | openssl ts -verify prints Verification: OK', async function () {
    expect((await query('q.tsq', ['-sha256', '-cert'])).code).to.equal(0);
    const res = await post('q.tsq', 'r.tsr');
    expect(res).to.deep.equal({ httpStatus: 200, contentType: 'application/timestamp-reply' });
    const byQuery = await openssl(verifyArgs('r.tsr', ['-queryfile', f('q.tsq')]));
    expect(byQuery.code, byQuery.output).to.equal(0);
    expect(byQuery.stdout).to.include('Verification: OK');
    const byData = await openssl(verifyArgs('r.tsr', ['-data', f('data.txt')]));
    expect(byData.stdout).to.include('Verification: OK');

    const text = await replyText('r.tsr');
    expect(text).to.include('Status: Granted.');
    expect(text).to.include(`Policy OID: ${TEST_POLICY}`);
    expect(text).to.include('Hash Algorithm: sha256');
    expect(text).to.include('Accuracy: 0x01 seconds');
    expect(text).to.match(/Serial number: 0x[0-9A-F]{30,32}\n/);
    expect(text).to.match(/Nonce: 0x[0-9A-F]+/);
    const genTime = /Time stamp: (.+)\n/.exec(text)![1]!;
    expect(Math.abs(Date.parse(genTime) - Date.now())).to.be.lessThan(60_000);

    // The token carries the TSA certificate and its sub-CA (certReq).
    await openssl(['ts', '-reply', '-in', f('r.tsr'), '-token_out', '-out', f('r.tst')]);
    const certs = await openssl(['pkcs7', '-inform', 'DER', '-in', f('r.tst'), '-print_certs', '-noout']);
    expect(certs.stdout).to.include('PKI Test TSA').and.include('PKI Test Sub CA');

    // Other data does not verify against it.
    writeFileSync(f('other.txt'), 'different bytes\n');
    const wrong = await openssl(verifyArgs('r.tsr', ['-data', f('other.txt')]));
    expect(wrong.stdout).to.not.include('Verification: OK');
  });

  it('SHA-384 and SHA-512 imprints, without a nonce, with our policy asked for', async function () {
    for (const alg of ['sha384', 'sha512']) {
      await query(`${alg}.tsq`, [`-${alg}`, '-cert', '-no_nonce', '-tspolicy', TEST_POLICY]);
      await post(`${alg}.tsq`, `${alg}.tsr`);
      const v = await openssl(verifyArgs(`${alg}.tsr`, ['-queryfile', f(`${alg}.tsq`)]));
      expect(v.stdout, v.output).to.include('Verification: OK');
      const text = await replyText(`${alg}.tsr`);
      expect(text).to.include(`Hash Algorithm: ${alg}`).and.include('Nonce: unspecified');
    }
  });

  it('without -cert the token has no certificates; the client supplies the TSA certificate', async function () {
    await query('nocert.tsq', ['-sha256']);
    await post('nocert.tsq', 'nocert.tsr');
    await openssl(['ts', '-reply', '-in', f('nocert.tsr'), '-token_out', '-out', f('nocert.tst')]);
    const certs = await openssl(['pkcs7', '-inform', 'DER', '-in', f('nocert.tst'), '-print_certs', '-noout']);
    expect(certs.stdout.trim()).to.equal('');
    writeFileSync(f('bundle.pem'), chain.subCa.pem + chain.tsa.pem);
    const v = await openssl(['ts', '-verify', '-in', f('nocert.tsr'), '-queryfile', f('nocert.tsq'), '-CAfile', chain.file('root.pem'), '-untrusted', f('bundle.pem')]);
    expect(v.stdout, v.output).to.include('Verification: OK');
  });

  it('a garbage body, an empty body, a truncated query get rejection replies (bad data format)', async function () {
    writeFileSync(f('garbage.bin'), 'this is not a TimeStampReq at all');
    writeFileSync(f('empty.bin'), '');
    await query('full.tsq', ['-sha256', '-cert']);
    const { readFileSync } = await import('node:fs');
    writeFileSync(f('truncated.bin'), readFileSync(f('full.tsq')).subarray(0, 20));
    for (const body of ['garbage.bin', 'empty.bin', 'truncated.bin']) {
      const res = await post(body, `${body}.tsr`);
      expect(res, body).to.deep.equal({ httpStatus: 200, contentType: 'application/timestamp-reply' });
      const text = await replyText(`${body}.tsr`);
      expect(text, body).to.include('Status: Rejected.');
      expect(text, body).to.include('Failure info: the data submitted has the wrong format');
      expect(text, body).to.include('TST info:\nNot included.');
    }
  });

  it('SHA-1 is refused (bad algorithm), another policy is refused (unaccepted policy)', async function () {
    await query('sha1.tsq', ['-sha1', '-cert']);
    await post('sha1.tsq', 'sha1.tsr');
    expect(await replyText('sha1.tsr')).to.include('Failure info: unrecognized or unsupported algorithm identifier');
    await query('policy.tsq', ['-sha256', '-tspolicy', '1.2.3.4.5']);
    await post('policy.tsq', 'policy.tsr');
    expect(await replyText('policy.tsr')).to.include('Failure info: the requested TSA policy is not supported by the TSA');
  });

  it('HTTP: oversized body 413 with a rejection, GET 405, /health 200; the server keeps answering', async function () {
    writeFileSync(f('big.bin'), Buffer.alloc(64 * 1024, 0x30));
    const big = await post('big.bin', 'big.tsr');
    expect(big.httpStatus).to.equal(413);
    expect(await replyText('big.tsr')).to.include('Failure info: the data submitted has the wrong format');
    const get = await fetch(tsa.url);
    expect(get.status).to.equal(405);
    expect(get.headers.get('allow')).to.equal('POST');
    const health = await fetch(new URL('/health', tsa.url));
    expect(await health.json()).to.deep.equal({ status: 'ok' });
    // Chunked upload over the limit (no Content-Length).
    const chunked = await fetch(tsa.url, {
      method: 'POST',
      body: new ReadableStream({ start(c) { c.enqueue(new Uint8Array(8192)); c.close(); } }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).to.equal(413);
    // Still serving.
    await post('q.tsq', 'again.tsr');
    expect((await openssl(verifyArgs('again.tsr', ['-queryfile', f('q.tsq')]))).stdout).to.include('Verification: OK');
  });

  it('50 concurrent requests: all granted, all serial numbers distinct', async function () {
    await query('c.tsq', ['-sha256', '-cert']);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => post('c.tsq', `c${i}.tsr`)));
    expect(results.every((r) => r.httpStatus === 200)).to.equal(true);
    const serials = await Promise.all(results.map(async (_, i) => /Serial number: (0x[0-9A-F]+)/.exec(await replyText(`c${i}.tsr`))![1]));
    expect(new Set(serials).size).to.equal(50);
  });
});
