/**
 * Why every signature carries a timestamp: c2pa-rs judges the signing certificate at validation time unless a
 * trusted RFC 3161 timestamp says when the signature was made. A leaf that expires seconds after signing shows
 * the difference: the file stamped by the service's TSA stays Trusted, the same file signed without a
 * timestamp turns Invalid (signingCredential.expired). Certificates come from the project's own code; the
 * timestamp from the service's TSA over HTTP through the workers' client.
 */
import { expect } from 'chai';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { httpTimestamper } from '../../shared/tsa/client.js';
import { fixture } from '../c2pa/helpers.js';
import { issueShortLivedLeaf, issueTestChain, tempDir, type TestChain } from '../pki/helpers.js';
import { startTestTsa, tsaIdentityOf, type RunningTsa } from './support.js';

/** Lifetime of the short-lived leaf: long enough to sign and check two files, short enough to wait out. */
const LEAF_LIFETIME_MS = 4000;

describe('tsa: a file signed with a leaf that then expires', function () {
  this.timeout(30_000);
  const tmp = tempDir('tsa-expiry-');
  let chain: TestChain;
  let tsa: RunningTsa;

  before(async function () {
    chain = await issueTestChain(tmp.dir);
    tsa = await startTestTsa(tsaIdentityOf(chain));
  });
  after(async function () {
    await tsa?.close();
    tmp.cleanup();
  });

  it('stays Trusted with a timestamp, and reads Invalid (signingCredential.expired) without one', async function () {
    const photo = await fixture('photo.jpg');
    const leaf = await issueShortLivedLeaf(chain, LEAF_LIFETIME_MS);
    const notAfter = leaf.facts.notAfter.getTime();
    const sign = (timestamped: boolean) =>
      signAsset({
        bytes: photo,
        mimeType: 'image/jpeg',
        manifest: buildManifestDefinition({ title: 'expiring.jpg', creator: 'Tess Stamp' }, { sourceHasManifest: false }),
        key: chain.keys.leaf,
        chainDer: [leaf.der, chain.subCa.der],
        timestamper: timestamped ? httpTimestamper({ url: tsa.url }) : undefined,
      });
    const [stamped, unstamped] = await Promise.all([sign(true), sign(false)]);
    const read = (bytes: Uint8Array) => readAsset(bytes, 'image/jpeg', { trustAnchorsPem: chain.root.pem });

    // While the leaf is valid both are Trusted; only one has a timestamp.
    const early = await Promise.all([read(stamped), read(unstamped)]);
    expect(Date.now(), 'signing took longer than the leaf lives; raise LEAF_LIFETIME_MS').to.be.below(notAfter);
    expect(early.map((r) => r.validation_state)).to.deep.equal(['Trusted', 'Trusted']);
    expect(early[0]!.timestamp).to.include({ validated: true, trusted: true });
    expect(early[1]!.timestamp).to.equal(null);

    // Wait (polling the clock) until the leaf has expired, with a second's margin for whole-second validity.
    while (Date.now() <= notAfter + 1000) await new Promise((r) => setTimeout(r, 100));

    const stampedLater = await read(stamped);
    expect(stampedLater.validation_state, JSON.stringify(stampedLater.status)).to.equal('Trusted');
    expect(stampedLater.status.failure).to.deep.equal([]);
    expect(stampedLater.status.success).to.include.members(['timeStamp.validated', 'timeStamp.trusted', 'signingCredential.trusted']);
    const signedAt = Date.parse(stampedLater.timestamp!.time!);
    expect(signedAt).to.equal(Date.parse(stampedLater.manifest!.signed_at!));
    expect(signedAt).to.be.within(leaf.facts.notBefore.getTime(), notAfter);

    const unstampedLater = await read(unstamped);
    expect(unstampedLater.validation_state).to.equal('Invalid');
    expect(unstampedLater.status.failure).to.include('signingCredential.expired');
    expect(unstampedLater.timestamp).to.equal(null);
  });
});
