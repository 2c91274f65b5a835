/**
 * An external RFC 3161 TSA as TSA_URL: OpenSSL's `openssl ts -reply` behind a small loopback HTTP server, its
 * certificate from a CA made with `openssl ca`. Files signed with the sign jobs' timestamper carry its tokens; the
 * service's verification reads timeStamp.trusted when that CA's root is among the TSA anchors (TRUST_ANCHORS_FILE),
 * not otherwise. A TSA whose certificate breaks the C2PA TSA profile is refused on its first token.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import request from 'supertest';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { signBytes } from '../../shared/c2pa/sign-asset.js';
import { httpTimestamper, TimestampUnavailableError } from '../../shared/tsa/client.js';
import { bearer, registerAccount, startTestApi, type TestApi } from '../support/api.js';
import { makeOpensslCa, type OpensslCa } from '../support/openssl-ca.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

const run = promisify(execFile);
const photo = readFileSync(new URL('../fixtures/small.jpg', import.meta.url));

/** `openssl ts -reply` for each POSTed query, one at a time, on 127.0.0.1. */
async function startOpensslTsa(dir: string, tsa: { cert: string; key: string; chain: string }): Promise<{ url: string; server: Server; replies: () => number }> {
  const section = `tsa-${path.basename(tsa.cert, '.pem')}`;
  writeFileSync(
    path.join(dir, `${section}.cnf`),
    [
      '[tsa]',
      `default_tsa = ${section}`,
      `[${section}]`,
      `serial = ${path.join(dir, `${section}.serial`)}`,
      'crypto_device = builtin',
      `signer_cert = ${tsa.cert}`,
      `certs = ${tsa.chain}`,
      `signer_key = ${tsa.key}`,
      'signer_digest = sha256',
      'default_policy = 1.3.6.1.4.1.4146.2.3',
      'digests = sha256, sha384, sha512',
      'accuracy = secs:1',
      'ordering = no',
      'tsa_name = no',
      'ess_cert_id_chain = no',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, `${section}.serial`), '01\n');
  let n = 0;
  let queue = Promise.resolve();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      queue = queue.then(async () => {
        n += 1;
        const query = path.join(dir, `${section}-${n}.tsq`);
        const reply = path.join(dir, `${section}-${n}.tsr`);
        writeFileSync(query, Buffer.concat(chunks));
        try {
          await run('openssl', ['ts', '-reply', '-config', path.join(dir, `${section}.cnf`), '-queryfile', query, '-out', reply]);
          res.writeHead(200, { 'Content-Type': 'application/timestamp-reply' }).end(readFileSync(reply));
        } catch (err) {
          res.writeHead(500).end(String(err));
        } finally {
          rmSync(query, { force: true });
          rmSync(reply, { force: true });
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server, replies: () => n };
}

describe('tsa: an external RFC 3161 TSA (OpenSSL) as TSA_URL', function () {
  this.timeout(90_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'external-tsa-'));
  let ca: OpensslCa;
  let signer: OpensslChain;
  let good: Awaited<ReturnType<typeof startOpensslTsa>>;
  let bad: Awaited<ReturnType<typeof startOpensslTsa>>;
  let api: TestApi;

  before(async () => {
    ca = makeOpensslCa('Listed TSA');
    signer = await makeOpensslChain({ cn: 'Signer' });
    good = await startOpensslTsa(dir, ca.issueTsa());
    // An unknown critical extension: OpenSSL stamps with it, c2pa-rs's chain check (and so the C2PA TSA profile) refuses it.
    bad = await startOpensslTsa(dir, ca.issueTsa('lax', ['basicConstraints = critical,CA:FALSE', 'keyUsage = critical,digitalSignature', 'extendedKeyUsage = critical,timeStamping', '1.2.3.4 = critical,DER:05:00']));
    // The operator's anchors: the signer's root and the TSA's CA root.
    writeFileSync(path.join(dir, 'anchors.pem'), signer.pem.root + ca.rootPem);
    api = await startTestApi({ TRUST_ANCHORS_FILE: path.join(dir, 'anchors.pem') }, { issuer: false });
  });
  after(async () => {
    await new Promise((resolve) => good?.server.close(resolve));
    await new Promise((resolve) => bad?.server.close(resolve));
    await api?.close();
    ca?.cleanup();
    rmSync(signer.dir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  const sign = (url: string) =>
    signBytes({
      mimeType: 'image/jpeg',
      bytes: photo,
      manifest: buildManifestDefinition({ title: 'small.jpg', creator: 'Desk' }, { sourceHasManifest: false }),
      key: signer.keys.leaf,
      chainDer: [signer.der.leaf, signer.der.subCa],
      timestamper: httpTimestamper({ url }),
      verifyAfterSign: false,
    });

  it("files carry its timestamps: timeStamp.trusted when its root is a TSA anchor, untrusted when it is not", async () => {
    const signed = await sign(good.url);
    expect(good.replies()).to.equal(1);
    const account = await registerAccount(api.app, 'Verifier');
    const verified = await request(api.app).post('/v1/media/verify').set(bearer(account.access)).attach('file', Buffer.from(signed.asset), 'small.jpg').expect(200);
    expect(verified.body.validation_state, JSON.stringify(verified.body.status)).to.equal('Trusted');
    expect(verified.body.timestamp).to.include({ validated: true, trusted: true, trust_source: 'operator_anchor' });

    // c2pa-rs alone: with the TSA's root among its anchors the timestamp is trusted; with only the signer's, not.
    const withTsaRoot = await readAsset(signed.asset, 'image/jpeg', { trustAnchorsPem: [signer.pem.root, ca.rootPem] });
    expect(withTsaRoot.timestamp).to.include({ validated: true, trusted: true });
    const withoutTsaRoot = await readAsset(signed.asset, 'image/jpeg', { trustAnchorsPem: signer.pem.root });
    expect(withoutTsaRoot.timestamp?.trusted).to.equal(false);
  });

  it('checks the TSA certificate against the C2PA TSA profile on its first token, and refuses one that breaks it', async () => {
    const err = await sign(bad.url).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TimestampUnavailableError);
    expect((err as Error).message).to.match(/does not meet the C2PA TSA profile: .*unknown critical extension 1\.2\.3\.4/);
    expect(bad.replies()).to.equal(1);
    // The good TSA goes on stamping.
    await sign(good.url);
    expect(good.replies()).to.equal(2);
  });
});
