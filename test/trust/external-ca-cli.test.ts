/**
 * The operator's way to an external CA's certificate: `npm run pki -- external-request | external-chain |
 * external-list | external-revoked`, with OpenSSL's `openssl ca` as the CA and its root in TRUST_ANCHORS_FILE.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { initPki } from '../../shared/pki/init.js';
import { orgSigningState } from '../../shared/pki/org-signing.js';
import { makeOpensslCa, type OpensslCa } from '../support/openssl-ca.js';
import { pkiCli, startTrust, type TrustFixture } from './support.js';

const ORG = 'e7e7e7e7-0000-4000-8000-000000000001';

describe('trust: the pki CLI takes a certificate from an external CA', function () {
  this.timeout(120_000);
  let t: TrustFixture;
  let ca: OpensslCa;
  let pki: ReturnType<typeof pkiCli>;

  before(async () => {
    t = await startTrust();
    ca = makeOpensslCa('Cli');
    await initPki(t.deps);
    await t.db.knex('organisations').insert({ id: ORG, name: 'Cli Org' });
    const anchors = path.join(ca.dir, 'anchors.pem');
    writeFileSync(anchors, ca.rootPem);
    pki = pkiCli(t, { TRUST_ANCHORS_FILE: anchors });
  });
  after(async () => {
    await t?.close();
    ca?.cleanup();
  });

  it('requests, accepts, lists and records the revocation; refuses a bad chain and a bad command line', async () => {
    expect((await pki('external-request', ORG, '--cn', 'Cli Signing')).code).to.equal(2);
    const requested = await pki('external-request', ORG, '--cn', 'Cli Signing', '--o', 'Cli Org Ltd', '--c', 'gb');
    expect(requested.code, requested.stderr).to.equal(0);
    const requestId = /^request ([0-9a-f-]{36})/m.exec(requested.stdout)![1]!;
    const csr = requested.stdout.slice(requested.stdout.indexOf('-----BEGIN CERTIFICATE REQUEST-----'));

    const bad = path.join(ca.dir, 'bad.pem');
    writeFileSync(bad, ca.issue(csr, { ownExtensions: ['keyUsage = critical,digitalSignature', 'extendedKeyUsage = serverAuth'] }) + ca.intermediatePem);
    const refused = await pki('external-chain', ORG, requestId, '--chain', bad);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/C2PA claim-signer profile/);

    const good = path.join(ca.dir, 'good.pem');
    writeFileSync(good, ca.issue(csr) + ca.intermediatePem);
    const accepted = await pki('external-chain', ORG, requestId, '--chain', good);
    expect(accepted.code, accepted.stderr).to.equal(0);
    expect(accepted.stdout).to.match(/^accepted: .*CN=Cli Signing,O=Cli Org Ltd,C=GB {2}issued by CN=Cli Issuing CA/);
    expect((await orgSigningState(t.db.knex, ORG)).state).to.equal('external');

    const listed = await pki('external-list', ORG);
    expect(listed.stdout).to.match(new RegExp(`^${requestId} +accepted`, 'm'));
    const revoked = await pki('external-revoked', ORG, requestId, '--reason', 'keyCompromise');
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(await orgSigningState(t.db.knex, ORG)).to.include({ state: 'external_unusable', reason: 'revoked' });
  });
});
