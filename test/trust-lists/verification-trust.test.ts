import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { verificationTrust } from '../../api/media/verification.js';
import { buildTrustStore } from '../../shared/trust/store.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

/** What a verification is judged by: computed once per trust store and service roots, an organisation's anchors on top. */
describe('verification trust', () => {
  let service: OpensslChain;
  let partner: OpensslChain;
  before(async () => {
    [service, partner] = await Promise.all([makeOpensslChain({ cn: 'Service' }), makeOpensslChain({ cn: 'Partner' })]);
  });
  after(() => {
    for (const c of [service, partner]) rmSync(c.dir, { recursive: true, force: true });
  });

  it('is the same object for the same store and roots, and new for new roots or a reloaded store', () => {
    const store = buildTrustStore({ trustLists: ['official', 'interim'], trustAnchorsFile: undefined });
    const first = verificationTrust([service.pem.root], store);
    expect(verificationTrust([service.pem.root], store)).to.equal(first);
    const otherRoots = verificationTrust([service.pem.root, partner.pem.root], store);
    expect(otherRoots).to.not.equal(first);
    expect(otherRoots.all.trustAnchorsPem).to.include(partner.pem.root);
    const reloaded = buildTrustStore({ trustLists: ['official', 'interim'], trustAnchorsFile: undefined });
    expect(verificationTrust([service.pem.root], reloaded)).to.not.equal(first);
    expect(verificationTrust([service.pem.root], reloaded)).to.deep.equal(first);
  });

  it("adds an organisation's anchors for signers and timestamps, asked last, without changing the shared trust", () => {
    const store = buildTrustStore({ trustLists: ['official'], trustAnchorsFile: undefined });
    const base = verificationTrust([service.pem.root], store);
    const before = JSON.stringify(base);
    const withOrg = verificationTrust([service.pem.root], store, [partner.pem.root]);
    expect(withOrg.all.trustAnchorsPem).to.include(partner.pem.root);
    expect(withOrg.candidates.map((c) => c.source)).to.deep.equal(['c2pa_trust_list', 'organisation_anchor']);
    expect(withOrg.candidates.at(-1)!.trust.trustAnchorsPem).to.deep.equal([partner.pem.root]);
    expect(withOrg.tsaAnchors.filter((a) => a.source === 'organisation_anchor').map((a) => a.pem)).to.deep.equal([partner.pem.root]);
    expect(JSON.stringify(verificationTrust([service.pem.root], store))).to.equal(before);
    expect(base.all.trustAnchorsPem).to.not.include(partner.pem.root);
  });
});
