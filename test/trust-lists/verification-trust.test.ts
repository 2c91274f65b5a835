import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { verificationTrust, type VerificationTrust } from '../../api/media/verification-trust.js';
import { LIST_SOURCES, SHIPPED_TRUST_LISTS_DIR } from '../../shared/trust/lists.js';
import { buildTrustStore } from '../../shared/trust/store.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

const shipped = (file: string) => readFileSync(path.join(SHIPPED_TRUST_LISTS_DIR, file), 'utf8');
const certificateCount = (pem: string) => pem.split('-----BEGIN CERTIFICATE-----').length - 1;

/** The verdict's lists of one kind, their certificates joined. */
function ofKind(trust: VerificationTrust, kind: 'manifest' | 'tsa'): { anchors: string; allowed: string } {
  const lists = trust.all.lists.filter((l) => l.kind === kind);
  return { anchors: lists.flatMap((l) => l.anchorsPem).join('\n'), allowed: lists.flatMap((l) => l.allowedPem ?? []).join('\n') };
}

/** What a verification is judged by: each list for what it vouches for, computed once per store and service roots. */
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
    expect(ofKind(otherRoots, 'manifest').anchors).to.include(partner.pem.root.trim());
    const reloaded = buildTrustStore({ trustLists: ['official', 'interim'], trustAnchorsFile: undefined });
    expect(verificationTrust([service.pem.root], reloaded)).to.not.equal(first);
    expect(verificationTrust([service.pem.root], reloaded)).to.deep.equal(first);
  });

  it('gives each list the kind it vouches for: the TSA list for timestamps only, the interim allowed list and anchors for claim signers', () => {
    const store = buildTrustStore({ trustLists: ['official', 'interim'], trustAnchorsFile: undefined });
    const trust = verificationTrust([service.pem.root], store);
    const claims = ofKind(trust, 'manifest');
    const tsa = ofKind(trust, 'tsa');
    // Each certificate of the C2PA TSA Trust List is a timestamp anchor; those on no claim-signer list are nothing else.
    const onClaimLists = new Set(store.claimAnchors.map((a) => a.certificate.fingerprint256));
    const tsaOnly = store.tsaAnchors.filter((a) => a.source === 'c2pa_trust_list' && !onClaimLists.has(a.certificate.fingerprint256));
    expect(tsaOnly).to.not.be.empty;
    for (const anchor of store.tsaAnchors.filter((a) => a.source === 'c2pa_trust_list')) expect(tsa.anchors).to.include(anchor.pem.trim());
    for (const anchor of tsaOnly) expect(claims.anchors).to.not.include(anchor.pem.trim());
    // The interim list's 117 end-entity certificates stand in a claim-signer list, with its store.cfg for every list.
    expect(certificateCount(claims.allowed)).to.equal(117);
    expect(certificateCount(tsa.allowed)).to.equal(0);
    expect(trust.all.trustConfig).to.include('1.3.6.1.4.1.62558.2.1');
    // The interim anchors vouch for both (one store for signers and TSAs, as its store.cfg says), as the service's roots do.
    for (const pem of [store.claimAnchors.find((a) => a.source === 'interim_trust_list')!.pem, service.pem.root]) {
      expect(claims.anchors).to.include(pem.trim());
      expect(tsa.anchors).to.include(pem.trim());
    }
    // Each list named in c2pa-rs's report by where it is published.
    expect(trust.all.lists.filter((l) => l.kind === 'tsa').map((l) => l.uri)).to.include(LIST_SOURCES.official.files.find((f) => f.kind === 'tsa_anchors')!.url);
    expect(trust.candidates.map((c) => c.source)).to.deep.equal(['c2pa_trust_list', 'interim_trust_list', 'service_ca']);
    for (const candidate of trust.candidates) {
      expect(candidate.trust.lists!.map((l) => l.kind)).to.deep.equal(['manifest']);
      expect(candidate.trust.timestampTrust).to.equal(false);
    }
    expect(certificateCount(trust.candidates[1]!.trust.lists![0]!.allowedPem!.join('\n'))).to.equal(117);
    expect(certificateCount(trust.candidates[0]!.trust.lists![0]!.anchorsPem.join('\n'))).to.equal(certificateCount(shipped('official/C2PA-TRUST-LIST.pem')));
  });

  it("takes the operator's files each for its kind: anchors for both, allowed certificates for claim signers, TSA anchors for timestamps", () => {
    const dir = partner.dir;
    writeFileSync(path.join(dir, 'allowed.pem'), partner.pem.leaf);
    writeFileSync(path.join(dir, 'tsa-anchors.pem'), service.pem.subCa);
    const store = buildTrustStore({
      trustLists: ['official'],
      trustAnchorsFile: partner.files.root,
      trustAllowedFile: path.join(dir, 'allowed.pem'),
      trustTsaAnchorsFile: path.join(dir, 'tsa-anchors.pem'),
    });
    const trust = verificationTrust([service.pem.root], store);
    expect(trust.candidates.map((c) => c.source)).to.deep.equal(['operator_anchor', 'operator_allowed', 'c2pa_trust_list', 'service_ca']);
    const allowed = trust.candidates[1]!.trust.lists![0]!;
    expect(allowed).to.deep.include({ kind: 'manifest', anchorsPem: [] });
    expect(allowed.allowedPem!.map((pem) => pem.trim())).to.deep.equal([partner.pem.leaf.trim()]);
    expect(ofKind(trust, 'manifest').anchors).to.not.include(service.pem.subCa.trim());
    expect(ofKind(trust, 'tsa').anchors).to.include(service.pem.subCa.trim());
    expect(ofKind(trust, 'tsa').anchors).to.include(partner.pem.root.trim());
    expect(trust.tsaAnchors.filter((a) => a.source === 'operator_anchor')).to.have.length(2);
    // No interim list: no allowed list of its own, no store.cfg.
    expect(trust.all.trustConfig).to.equal(undefined);
  });

  it("adds an organisation's anchors for signers and timestamps, asked after the public lists, without changing the shared trust", () => {
    const store = buildTrustStore({ trustLists: ['official'], trustAnchorsFile: undefined });
    const base = verificationTrust([service.pem.root], store);
    const before = JSON.stringify(base);
    const withOrg = verificationTrust([service.pem.root], store, [partner.pem.root]);
    expect(ofKind(withOrg, 'manifest').anchors).to.include(partner.pem.root.trim());
    expect(ofKind(withOrg, 'tsa').anchors).to.include(partner.pem.root.trim());
    expect(withOrg.candidates.map((c) => c.source)).to.deep.equal(['c2pa_trust_list', 'organisation_anchor', 'service_ca']);
    expect(withOrg.candidates[1]!.trust.lists![0]!.anchorsPem).to.deep.equal([partner.pem.root]);
    expect(withOrg.tsaAnchors.filter((a) => a.source === 'organisation_anchor').map((a) => a.pem)).to.deep.equal([partner.pem.root]);
    expect(JSON.stringify(verificationTrust([service.pem.root], store))).to.equal(before);
    expect(ofKind(base, 'manifest').anchors).to.not.include(partner.pem.root.trim());
  });
});
