import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { identityAssertion } from '../../shared/c2pa/cawg-identity.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { crJsonOf, readAsset } from '../../shared/c2pa/read-asset.js';
import type { ReadOptions } from '../../shared/c2pa/settings.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { fixture, opensslTimestamper } from './helpers.js';

/** c2pa-rs (WASM) reads what the service signs for a person: a cawg.identity assertion beside the organisation's claim signature. */
describe('c2pa: CAWG X.509 identity assertions signed with a vault key', function () {
  let org: OpensslChain;
  let person: OpensslChain;
  let signed: Uint8Array;
  const lists = (cawg: boolean): ReadOptions => ({
    lists: [
      { kind: 'manifest', anchorsPem: [org.pem.root] },
      { kind: 'tsa', anchorsPem: [org.pem.root] },
      ...(cawg ? [{ kind: 'cawg' as const, anchorsPem: [person.pem.root] }] : []),
    ],
  });

  before(async () => {
    let photo: Uint8Array;
    [org, person, photo] = await Promise.all([makeOpensslChain(), makeOpensslChain({ cn: 'Jane Doe' }), fixture('photo.jpg')]);
    const timestamper = await opensslTimestamper(org);
    signed = await signAsset({
      bytes: photo,
      mimeType: 'image/jpeg',
      manifest: buildManifestDefinition({ title: 'p.jpg', creator: 'Desk' }, { sourceHasManifest: false }),
      key: org.keys.leaf,
      chainDer: [org.der.leaf, org.der.subCa],
      timestamper,
      identityAssertions: [identityAssertion({ key: person.keys.leaf, chainDer: [person.der.leaf, person.der.subCa], roles: ['cawg.creator', 'cawg.editor'], timestamper })],
    });
  });
  after(() => {
    for (const c of [org, person]) if (c) rmSync(c.dir, { recursive: true, force: true });
  });

  it('reads cawg.identity.well-formed, cawg.x509.signature.validated and, with the identity CA as a cawg anchor, cawg.x509.credential.trusted: Trusted', async () => {
    const report = await readAsset(signed, 'image/jpeg', lists(true));
    expect(report.status.failure).to.deep.equal([]);
    expect(report.status.success).to.include.members(['cawg.identity.well-formed', 'cawg.x509.signature.validated', 'cawg.x509.credential.trusted', 'signingCredential.trusted', 'claimSignature.validated']);
    expect(report.validation_state).to.equal('Trusted');
  });

  it('signs a payload referencing the actions and the hard binding, with the roles, under the person’s certificate', async () => {
    const cr = JSON.parse((await crJsonOf(signed, 'image/jpeg', lists(true))) as string);
    const identity = cr.manifests[0].assertions['cawg.identity'];
    expect(identity.signer_payload.sig_type).to.equal('cawg.x509.cose');
    expect(identity.signer_payload.role).to.deep.equal(['cawg.creator', 'cawg.editor']);
    expect(identity.signer_payload.referenced_assertions.map((r: { url: string }) => r.url)).to.have.members(['self#jumbf=c2pa.assertions/c2pa.actions.v2', 'self#jumbf=c2pa.assertions/c2pa.hash.data']);
    expect(identity.signature.certificateInfo.subject.CN).to.equal('Jane Doe leaf');
    // The organisation's claim signature is its own, unchanged.
    expect(cr.manifests[0].signature.certificateInfo.subject.CN).to.equal('Test leaf');
  });

  it('without a cawg anchor the identity reads untrusted and the file Valid (the claim signature still trusted)', async () => {
    const report = await readAsset(signed, 'image/jpeg', lists(false));
    expect(report.status.failure).to.include('cawg.x509.credential.untrusted');
    expect(report.status.success).to.include.members(['cawg.x509.signature.validated', 'signingCredential.trusted']);
    expect(report.validation_state).to.equal('Valid');
  });
});
