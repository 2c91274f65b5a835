import { expect } from 'chai';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { fixture, opensslTimestamper } from '../c2pa/helpers.js';
import type { OpensslChain } from '../support/openssl-chain.js';
import { issueTestChain, tempDir, type TestChain } from './helpers.js';

/**
 * The certificates this module issues are accepted by a real C2PA validator: c2pa-rs (through
 * @contentauth/c2pa-wasm) applies its certificate profile checks (EKU list, AKI, keyUsage, ...) to the leaf
 * and the TSA certificate.
 */
describe('pki: certificates issued here are accepted by c2pa-rs', function () {
  const tmp = tempDir();
  let chain: TestChain;
  let photo: Uint8Array;

  before(async () => {
    [chain, photo] = await Promise.all([issueTestChain(tmp.dir), fixture('photo.jpg')]);
  });
  after(() => tmp.cleanup());

  const sign = (timestamper?: Parameters<typeof signAsset>[0]['timestamper']) =>
    signAsset({
      bytes: photo,
      mimeType: 'image/jpeg',
      manifest: buildManifestDefinition({ title: 'photo.jpg', creator: 'PKI Test' }, { sourceHasManifest: false }),
      key: chain.keys.leaf,
      chainDer: [chain.leaf.der, chain.subCa.der],
      timestamper,
    });

  it('a file signed with the issued leaf (emailProtection EKU) reads Trusted against the issued root', async () => {
    const report = await readAsset(await sign(), 'image/jpeg', { trustAnchorsPem: chain.root.pem });
    expect(report.status.failure).to.deep.equal([]);
    expect(report.validation_state).to.equal('Trusted');
    expect(report.status.success).to.include('signingCredential.trusted');
    expect(report.signer?.serial?.replace(/^0+/, '')).to.equal(chain.leaf.facts.serialHex.replace(/^0+/, ''));
  });

  it('an RFC 3161 timestamp from the issued TSA certificate (EKU timeStamping, critical) is trusted', async () => {
    // openssl ts -reply as the TSA, with our TSA certificate and its key from the local vault (dir/vault/tsa.pem).
    const asOpensslChain = { dir: chain.dir, files: { tsa: chain.file('tsa.pem'), subCa: chain.file('sub-ca.pem') } } as OpensslChain;
    const report = await readAsset(await sign(await opensslTimestamper(asOpensslChain)), 'image/jpeg', { trustAnchorsPem: chain.root.pem });
    expect(report.status.failure).to.deep.equal([]);
    expect(report.validation_state).to.equal('Trusted');
    expect(report.status.success).to.include.members(['timeStamp.validated', 'timeStamp.trusted']);
    expect(report.manifest?.signed_at).to.be.a('string');
  });
});
