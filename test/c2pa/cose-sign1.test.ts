import { rmSync } from 'node:fs';
import { randomBytes, verify, X509Certificate } from 'node:crypto';
import { expect } from 'chai';
import { Decoder, Tag } from 'cbor-x';
import {
  coseSigner,
  CoseSizeError,
  padToReserve,
  protectedHeader,
  reserveSizeFor,
  sigStructure,
  TIMESTAMP_BUDGET_BYTES,
} from '../../shared/c2pa/cose-sign1.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { BytesBlob, c2paWasm } from '../../shared/c2pa/wasm.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { fixture } from './helpers.js';

const decoder = new Decoder({ mapsAsObjects: false, useRecords: false });

describe('c2pa: COSE_Sign1 for the WASM signer', function () {
  let chain: OpensslChain;
  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });
  before(async function () {
    chain = await makeOpensslChain();
  });

  it('is a tagged COSE_Sign1 of exactly reserveSize bytes whose ES384 signature verifies', async function () {
    const chainDer = [chain.der.leaf, chain.der.subCa];
    const signer = coseSigner({ key: chain.keys.leaf, chainDer });
    expect(signer.alg).to.equal('es384');
    expect(signer.reserveSize).to.equal(reserveSizeFor(chainDer, { timestamp: false }));
    const claim = randomBytes(900);
    const cose = await signer.sign(claim);
    expect(cose.byteLength).to.equal(signer.reserveSize);

    const tagged = decoder.decode(cose) as Tag;
    expect(tagged).to.be.instanceOf(Tag);
    expect(tagged.tag).to.equal(18);
    const [protectedBytes, unprotected, payload, signature] = tagged.value as [Uint8Array, Map<string, unknown>, null, Uint8Array];
    const header = decoder.decode(protectedBytes) as Map<number, unknown>;
    expect(header.get(1)).to.equal(-35);
    expect((header.get(33) as Uint8Array[]).map((d) => Buffer.from(d).toString('hex'))).to.deep.equal(
      chainDer.map((d) => Buffer.from(d).toString('hex')),
    );
    expect(payload).to.equal(null); // detached: the claim
    expect([...unprotected.keys()]).to.deep.equal(['pad']);
    expect(signature.byteLength).to.equal(96);
    const ok = verify(
      'sha384',
      sigStructure(protectedBytes, claim),
      { key: new X509Certificate(chain.der.leaf).publicKey, dsaEncoding: 'ieee-p1363' },
      signature,
    );
    expect(ok).to.equal(true);
  });

  it('the timestamp budget is added when a timestamper is given', function () {
    const chainDer = [chain.der.leaf, chain.der.subCa];
    expect(reserveSizeFor(chainDer, { timestamp: true }) - reserveSizeFor(chainDer, { timestamp: false })).to.equal(
      TIMESTAMP_BUDGET_BYTES,
    );
  });

  it('pads to every reachable size, using pad2 where one pad cannot hit the target', function () {
    const protectedBytes = protectedHeader([chain.der.leaf]);
    const signature = new Uint8Array(96);
    // The unpadded length: one reserve's output minus its single pad entry ("pad" key + bstr header + zeros).
    const probe = (decoder.decode(padToReserve(protectedBytes, new Map(), signature, 2000)) as Tag).value[1] as Map<string, Uint8Array>;
    const padLength = probe.get('pad')!.byteLength;
    const base = 2000 - (4 + (padLength < 256 ? 2 : 3) + padLength);
    const sizes = [...Array(700).keys()].map((i) => base + 5 + i).concat([...Array(40).keys()].map((i) => base + 65_520 + i));
    for (const size of sizes) {
      const out = padToReserve(protectedBytes, new Map(), signature, size);
      expect(out.byteLength, `reserve ${size}`).to.equal(size);
      const unprotected = (decoder.decode(out) as Tag).value[1] as Map<string, Uint8Array>;
      expect([...unprotected.keys()].every((k) => k === 'pad' || k === 'pad2')).to.equal(true);
    }
    // 1-4 extra bytes cannot be filled by any pad entry.
    expect(() => padToReserve(protectedBytes, new Map(), signature, base + 3)).to.throw(CoseSizeError);
    expect(() => padToReserve(protectedBytes, new Map(), signature, base - 1)).to.throw(CoseSizeError);
  });

  it('c2pa-rs accepts a signature padded with pad and pad2', async function () {
    const chainDer = [chain.der.leaf, chain.der.subCa];
    const probe = coseSigner({ key: chain.keys.leaf, chainDer });
    const unprotected = (decoder.decode(await probe.sign(randomBytes(10))) as Tag).value[1] as Map<string, Uint8Array>;
    const padLength = unprotected.get('pad')!.byteLength;
    const base = probe.reserveSize - (4 + (padLength < 256 ? 2 : 3) + padLength);
    // 29 extra bytes: one pad would need a 24-byte string, whose 2-byte header overshoots by one.
    const signer = coseSigner({ key: chain.keys.leaf, chainDer, reserveSize: base + 29 });
    const cose = await signer.sign(randomBytes(10));
    expect([...((decoder.decode(cose) as Tag).value[1] as Map<string, unknown>).keys()]).to.deep.equal(['pad', 'pad2']);

    const { WasmBuilder } = c2paWasm();
    const definition = {
      title: 'pad2.jpg',
      assertions: [{ label: 'c2pa.actions.v2', data: { actions: [{ action: 'c2pa.created', digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture' }] } }],
    };
    const builder = WasmBuilder.fromJson(JSON.stringify(definition));
    const photo = await fixture('photo.jpg');
    const signed = await builder.sign(signer, [], 'image/jpeg', new BytesBlob(photo));
    builder.free();
    const report = await readAsset(signed, 'image/jpeg', { trustAnchorsPem: chain.pem.root });
    expect(report.validation_state).to.equal('Trusted');
  });

  it('refuses a vault that returns something other than a raw 96-byte signature', async function () {
    const derKey = { ...chain.keys.leaf, signEs384: async () => new Uint8Array(103) };
    const signer = coseSigner({ key: derKey, chainDer: [chain.der.leaf, chain.der.subCa] });
    const err = await signer.sign(randomBytes(10)).catch((e: unknown) => e);
    expect((err as Error).message).to.match(/103-byte signature, expected raw r\|\|s/);
  });

  it('refuses an empty chain', function () {
    expect(() => coseSigner({ key: chain.keys.leaf, chainDer: [] })).to.throw(/chain is empty/);
  });
});
