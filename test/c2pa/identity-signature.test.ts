import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Decoder, encode, Tag } from 'cbor-x';
import fc from 'fast-check';
import type { IdentityView } from '../../shared/c2pa/identities.js';
import { withIdentityCertificates } from '../../shared/c2pa/identity-signature.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { activeSignatureOf, type ActiveSignature } from '../../shared/c2pa/signature-cose.js';
import { makeOpensslCa, opensslPerson, type OpensslCa } from '../support/openssl-ca.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { signedAsPerson } from './helpers.js';

const decoder = new Decoder({ mapsAsObjects: false });
const decode = (bytes: Uint8Array): unknown => decoder.decode(bytes);

/**
 * An X.509 identity's e-mail address and issuer, read from the certificate in the identity assertion's own signature
 * (c2pa-rs reports neither), for a person the service knows nothing of; damaged or hostile assertions leave both null.
 */
describe("c2pa: an X.509 identity's e-mail address and issuer, from its own signature", function () {
  this.timeout(60_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'identity-signature-'));
  let ca: OpensslCa;
  let org: OpensslChain;
  let identity: IdentityView;
  let signature: ActiveSignature;
  let assertion: Map<string, unknown>;

  before(async () => {
    ca = makeOpensslCa('Newsroom');
    org = await makeOpensslChain({ cn: 'Agency' });
    const person = await opensslPerson(ca, dir, { name: 'Jane Doe', organisation: 'Daily Planet', email: 'jane@planet.example' });
    const signed = await signedAsPerson(org, person);
    const report = await readAsset(signed, 'image/jpeg', { lists: [{ kind: 'manifest', anchorsPem: [org.pem.root] }] });
    identity = report.identities[0]!;
    signature = activeSignatureOf(signed, report.active_manifest)!;
    assertion = decode(signature.identityAssertions.get('cawg.identity')!) as Map<string, unknown>;
  });
  after(() => {
    ca?.cleanup();
    if (org) rmSync(org.dir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  /** The identity as filled from an assertion with these CBOR bytes in place of the file's. */
  const filledFrom = (bytes: Uint8Array, view: IdentityView = identity) =>
    withIdentityCertificates([view], { ...signature, identityAssertions: new Map([['cawg.identity', bytes]]) })[0]!;
  const withSignature = (sign1: unknown) => new Uint8Array(encode(new Map([...assertion, ['signature', sign1]])));
  const sign1With = (protectedHeader: unknown) => new Uint8Array(encode(new Tag([protectedHeader, new Map(), null, new Uint8Array(96)], 18)));

  it('fills the e-mail address from subjectAltName and the issuer as the service words it, beside what c2pa-rs reported', () => {
    expect(identity).to.include({ name: 'Jane Doe', organisation: 'Daily Planet', email: null, issuer: null });
    const [filled] = withIdentityCertificates([identity], signature);
    expect(filled).to.deep.equal({ ...identity, email: 'jane@planet.example', issuer: 'CN=Newsroom Issuing CA,O=Newsroom CA,C=GB' });
  });

  it('leaves both null when the assertion is missing, of another kind, or carries a certificate other than the one c2pa-rs read', () => {
    const nulls = { email: null, issuer: null };
    expect(withIdentityCertificates([identity], undefined)[0]).to.include(nulls);
    expect(withIdentityCertificates([identity], { ...signature, identityAssertions: new Map() })[0]).to.include(nulls);
    expect(withIdentityCertificates([{ ...identity, sig_type: 'cawg.identity_claims_aggregation' }], signature)[0]).to.include(nulls);
    expect(withIdentityCertificates([{ ...identity, serial: '01' }], signature)[0]).to.include(nulls);
    expect(withIdentityCertificates([{ ...identity, serial: null }], signature)[0]).to.include(nulls);
  });

  it('leaves both null for malformed signatures, and does not throw', () => {
    const sign1 = decode(assertion.get('signature') as Uint8Array) as Tag;
    const leaf = (decode((sign1.value as Uint8Array[])[0]!) as Map<number, Uint8Array[]>).get(33)![0]!;
    const damagedLeaf = Uint8Array.from(leaf);
    damagedLeaf[1] ^= 0x7f; // the certificate SEQUENCE's length
    const cases: [string, Uint8Array][] = [
      ['not CBOR', new Uint8Array([0xff, 0xfe, 0x00])],
      ['a CBOR text, not a map', new Uint8Array(encode('cawg.identity'))],
      ['no signature', new Uint8Array(encode(new Map([['signer_payload', assertion.get('signer_payload')]])))],
      ['a signature that is text', withSignature('signature')],
      ['a signature that is not CBOR', withSignature(new Uint8Array([0x5f, 0x41]))],
      ['a signature that is not a COSE_Sign1', withSignature(new Uint8Array(encode(new Map([[1, 2]]))))],
      ['a protected header that is not bytes', withSignature(sign1With(7))],
      ['no x5chain', withSignature(sign1With(new Uint8Array(encode(new Map([[1, -35]])))))],
      ['an x5chain of text', withSignature(sign1With(new Uint8Array(encode(new Map([[33, ['a certificate']]])))))],
      ['a damaged certificate', withSignature(sign1With(new Uint8Array(encode(new Map([[33, [damagedLeaf]]])))))],
      ['a truncated certificate', withSignature(sign1With(new Uint8Array(encode(new Map([[33, leaf.subarray(0, leaf.length >> 1)]])))))],
      ['nesting deeper than the stack', new Uint8Array([...new Uint8Array(200_000).fill(0x81), 0x00])],
      ['the assertion truncated', signature.identityAssertions.get('cawg.identity')!.subarray(0, 300)],
      ['the assertion padded past the size read', new Uint8Array(encode(new Map([...assertion, ['pad1', new Uint8Array(512 * 1024)]])))],
    ];
    for (const [what, bytes] of cases) expect(filledFrom(bytes), what).to.include({ email: null, issuer: null });
    // The same shapes undamaged fill it: so the cases above fail for what they break.
    expect(filledFrom(withSignature(sign1With(new Uint8Array(encode(new Map([[33, [leaf]]]))))))).to.include({ email: 'jane@planet.example' });
    expect(filledFrom(new Uint8Array(encode(new Map([...assertion, ['pad1', new Uint8Array(1024)]]))))).to.include({ email: 'jane@planet.example' });
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        expect(filledFrom(bytes)).to.include({ email: null, issuer: null });
      }),
      { seed: 30, numRuns: 500 },
    );
  });
});
