import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Decoder, Tag } from 'cbor-x';
import { coseSigner, protectedHeader, reserveSizeFor, timestampImprintInput } from '../../shared/c2pa/cose-sign1.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { checkTimeStampToken, TimeStampTokenError } from '../../shared/tsa/token-check.js';
import type { Timestamper } from '../../shared/tsa/client.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { fixture, opensslTimestamper } from './helpers.js';

const decoder = new Decoder({ mapsAsObjects: false, useRecords: false });

/** RFC 3161 timestamps (sigTst2) from a real TSA: `openssl ts -reply` with a TSA certificate under our sub-CA. */
describe('c2pa: sigTst2 timestamps', function () {
  let chain: OpensslChain;
  let timestamper: Timestamper;
  let photo: Uint8Array;

  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  before(async function () {
    chain = await makeOpensslChain();
    timestamper = await opensslTimestamper(chain);
    photo = await fixture('photo.jpg');
  });

  it('puts the token in the unprotected header, stamping the CounterSignature structure over the signature', async function () {
    const chainDer = [chain.der.leaf, chain.der.subCa];
    const seen: Uint8Array[] = [];
    const signer = coseSigner({
      key: chain.keys.leaf,
      chainDer,
      timestamper: async (input) => {
        seen.push(input);
        return timestamper(input);
      },
    });
    expect(signer.reserveSize).to.equal(reserveSizeFor(chainDer, { timestamp: true }));
    const cose = await signer.sign(randomBytes(500));
    expect(cose.byteLength).to.equal(signer.reserveSize);
    const [protectedBytes, unprotected, , signature] = (decoder.decode(cose) as Tag).value as [
      Uint8Array, Map<string, unknown>, null, Uint8Array,
    ];
    expect(Buffer.from(protectedBytes).equals(Buffer.from(protectedHeader(chainDer)))).to.equal(true);
    expect(seen).to.have.length(1);
    expect(Buffer.from(seen[0]!).equals(Buffer.from(timestampImprintInput(protectedBytes, signature)))).to.equal(true);
    const sigTst2 = unprotected.get('sigTst2') as Map<string, Map<string, Uint8Array>[]>;
    const token = sigTst2.get('tstTokens')![0]!.get('val')!;
    const info = checkTimeStampToken(token, seen[0]!);
    expect(info.hashAlgorithm).to.equal('sha256');
    expect(Math.abs(info.genTime.getTime() - Date.now())).to.be.lessThan(60_000);
  });

  it('c2pa-rs validates and trusts the timestamp and reports the signing time', async function () {
    const signedAt = Date.now();
    const signed = await signAsset({
      bytes: photo,
      mimeType: 'image/jpeg',
      manifest: buildManifestDefinition({ title: 'stamped.jpg', creator: 'Ada Lovelace' }, { sourceHasManifest: false }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
      timestamper,
    });
    const report = await readAsset(signed, 'image/jpeg', { trustAnchorsPem: chain.pem.root });
    expect(report.validation_state).to.equal('Trusted');
    expect(report.status.failure).to.deep.equal([]);
    expect(report.status.success).to.include.members(['timeStamp.validated', 'timeStamp.trusted']);
    expect(report.manifest?.signed_at).to.be.a('string');
    expect(Math.abs(Date.parse(report.manifest!.signed_at!) - signedAt)).to.be.lessThan(60_000);
  });

  it('refuses a token that stamps something else, before it reaches the file', async function () {
    const wrongToken: Timestamper = async () => timestamper(randomBytes(32));
    const err = await signAsset({
      bytes: photo,
      mimeType: 'image/jpeg',
      manifest: buildManifestDefinition({ title: 't', creator: 'c' }, { sourceHasManifest: false }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
      timestamper: wrongToken,
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TimeStampTokenError);
    expect((err as Error).message).to.contain('imprint does not match');
  });

  it('refuses bytes that are not a TimeStampToken', function () {
    expect(() => checkTimeStampToken(randomBytes(40), randomBytes(10))).to.throw(TimeStampTokenError, /no RFC 3161/);
  });
});
