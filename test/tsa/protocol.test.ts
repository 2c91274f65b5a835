/**
 * RFC 3161 messages and the TSA core, without HTTP: request parsing with the right failure info, the token's
 * structure read back by an independent parser (@peculiar/asn1-cms / asn1-tsp) and node:crypto, and the core's
 * refusals (policy, no certificate, vault down, busy). OpenSSL's view is in openssl-interop.test.ts.
 */
import { createHash, randomBytes, verify, X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { AsnConvert } from '@peculiar/asn1-schema';
import { ContentInfo, SignedData } from '@peculiar/asn1-cms';
import { TSTInfo } from '@peculiar/asn1-tsp';
import { cachedTsaIdentity, NoTsaCertificateError, TimeStampAuthority } from '../../shared/tsa/authority.js';
import { checkTimeStampToken, TimeStampTokenError } from '../../shared/tsa/token-check.js';
import { TAG, encodeTlv, readChildren, readSingle } from '../../shared/pki/der.js';
import {
  algorithmIdentifier,
  buildTimeStampRequest,
  decodeFailureInfo,
  encodeFailureInfo,
  encodeOid,
  decodeOid,
  parseTimeStampRequest,
  parseTimeStampResponse,
  PKI_FAILURE_BITS,
  TimeStampRequestError,
  type PkiFailureInfo,
} from '../../shared/tsa/protocol.js';
import { issueTimeStampToken, OID, prepareTsaSigner } from '../../shared/tsa/token.js';
import { VaultUnavailableError, type VaultKey } from '../../shared/vault/types.js';
import { issueTestChain, tempDir, type TestChain } from '../pki/helpers.js';
import { TEST_POLICY, tsaIdentityOf } from './support.js';

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** A query written by `openssl ts -query` (the reference client). */
function opensslQuery(dir: string, args: string[]): Uint8Array {
  const out = path.join(dir, `q-${randomBytes(4).toString('hex')}.tsq`);
  execFileSync('openssl', ['ts', '-query', ...args, '-out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Uint8Array(readFileSync(out));
}

function expectRefused(der: Uint8Array, failInfo: PkiFailureInfo, message?: RegExp): void {
  try {
    parseTimeStampRequest(der);
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(TimeStampRequestError);
    expect((err as TimeStampRequestError).failInfo, (err as Error).message).to.equal(failInfo);
    if (message) expect((err as Error).message).to.match(message);
    return;
  }
  expect.fail(`expected a ${failInfo} refusal`);
}

const SHA256 = '2.16.840.1.101.3.4.2.1';
const SHA512 = '2.16.840.1.101.3.4.2.3';

/** A TimeStampReq assembled from parts, to make precisely malformed ones. */
function request(parts: { alg: Uint8Array; hash: Uint8Array; hashTag?: number; version?: number; rest?: Uint8Array[] }): Uint8Array {
  return encodeTlv(
    TAG.SEQUENCE,
    encodeTlv(TAG.INTEGER, Uint8Array.of(parts.version ?? 1)),
    encodeTlv(TAG.SEQUENCE, parts.alg, encodeTlv(parts.hashTag ?? TAG.OCTET_STRING, parts.hash)),
    ...(parts.rest ?? []),
  );
}

describe('tsa: RFC 3161 protocol and the TSA core', function () {
  const tmp = tempDir('tsa-protocol-');
  let chain: TestChain;

  before(async function () {
    chain = await issueTestChain(tmp.dir);
  });
  after(() => tmp.cleanup());

  describe('TimeStampReq parsing', function () {
    it('reads what openssl ts -query writes: each hash, nonce, certReq, policy', function () {
      const digest = sha256('hello');
      const q = parseTimeStampRequest(opensslQuery(tmp.dir, ['-digest', digest.toString('hex'), '-sha256', '-cert']));
      expect(q.hashAlgorithm).to.equal('sha256');
      expect(Buffer.from(q.hashedMessage).equals(digest)).to.equal(true);
      expect(q.certReq).to.equal(true);
      expect(q.nonceDer?.[0]).to.equal(0x02);
      expect(q.reqPolicy).to.equal(undefined);
      for (const alg of ['sha384', 'sha512'] as const) {
        const d = createHash(alg).update('x').digest();
        const r = parseTimeStampRequest(opensslQuery(tmp.dir, ['-digest', d.toString('hex'), `-${alg}`, '-no_nonce', '-tspolicy', TEST_POLICY]));
        expect([r.hashAlgorithm, r.certReq, r.nonceDer, r.reqPolicy]).to.deep.equal([alg, false, undefined, TEST_POLICY]);
      }
    });

    it('round-trips its own requests (the worker client)', function () {
      const der = buildTimeStampRequest({ hashAlgorithm: 'sha384', hashedMessage: new Uint8Array(48).fill(7), nonce: Uint8Array.of(0x12, 0x34), certReq: true, reqPolicy: '1.2.3' });
      const q = parseTimeStampRequest(der);
      expect([q.hashAlgorithm, q.certReq, q.reqPolicy, Buffer.from(q.nonceDer!).toString('hex')]).to.deep.equal(['sha384', true, '1.2.3', '02021234']);
      const file = path.join(tmp.dir, 'own.tsq');
      writeFileSync(file, der);
      const openssl = execFileSync('openssl', ['ts', '-query', '-in', file, '-text'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
      expect(openssl).to.include('Hash Algorithm: sha384').and.include('Certificate required: yes').and.include('Nonce: 0x1234');
    });

    it('refuses garbage, empty, truncated and trailing bytes with badDataFormat, and nothing else', function () {
      const good = opensslQuery(tmp.dir, ['-digest', sha256('a').toString('hex'), '-sha256', '-cert']);
      expectRefused(new Uint8Array(0), 'badDataFormat', /empty/);
      expectRefused(new TextEncoder().encode('hello, this is not DER'), 'badDataFormat');
      expectRefused(Uint8Array.of(0x04, 0x02, 0x01, 0x01), 'badDataFormat', /SEQUENCE/);
      expectRefused(Uint8Array.of(...good, 0x00), 'badDataFormat', /trailing/);
      for (let n = 1; n < good.length; n++) expectRefused(good.subarray(0, n), 'badDataFormat');
      for (let i = 0; i < 300; i++) {
        try {
          parseTimeStampRequest(randomBytes(1 + (i % 80)));
        } catch (err) {
          expect(err).to.be.instanceOf(TimeStampRequestError);
        }
      }
    });

    it('wrong hash length: badDataFormat; SHA-1, MD5, unknown or parameterised algorithms: badAlg', function () {
      expectRefused(request({ alg: algorithmIdentifier(SHA512), hash: new Uint8Array(32) }), 'badDataFormat', /sha512 hash is 64 bytes, got 32/);
      expectRefused(request({ alg: algorithmIdentifier(SHA256), hash: new Uint8Array(33) }), 'badDataFormat', /sha256 hash is 32 bytes, got 33/);
      const sha1 = opensslQuery(tmp.dir, ['-digest', createHash('sha1').update('a').digest('hex'), '-sha1']);
      expectRefused(sha1, 'badAlg', /1\.3\.14\.3\.2\.26 is not accepted/);
      const md5 = opensslQuery(tmp.dir, ['-digest', createHash('md5').update('a').digest('hex'), '-md5']);
      expectRefused(md5, 'badAlg');
      expectRefused(request({ alg: algorithmIdentifier('2.16.840.1.101.3.4.2.9'), hash: new Uint8Array(32) }), 'badAlg', /2\.16\.840\.1\.101\.3\.4\.2\.9/);
      const withParams = encodeTlv(TAG.SEQUENCE, encodeOid(SHA256), encodeTlv(TAG.INTEGER, Uint8Array.of(1)));
      expectRefused(request({ alg: withParams, hash: new Uint8Array(32) }), 'badAlg', /parameters/);
      // NULL parameters (what OpenSSL sends) and absent parameters are both fine.
      const nullParams = encodeTlv(TAG.SEQUENCE, encodeOid(SHA256), Uint8Array.of(TAG.NULL, 0));
      expect(parseTimeStampRequest(request({ alg: nullParams, hash: new Uint8Array(32) })).hashAlgorithm).to.equal('sha256');
      expectRefused(request({ alg: encodeTlv(TAG.SEQUENCE), hash: new Uint8Array(32) }), 'badDataFormat', /AlgorithmIdentifier/);
      expectRefused(request({ alg: algorithmIdentifier(SHA256), hash: new Uint8Array(32), hashTag: TAG.BIT_STRING }), 'badDataFormat', /OCTET STRING/);
    });

    it('refuses version 2 and out-of-order fields (badDataFormat), extensions (unacceptedExtension), over-long nonces', function () {
      const imprint = { alg: algorithmIdentifier(SHA256), hash: new Uint8Array(32) };
      const nonce = encodeTlv(TAG.INTEGER, Uint8Array.of(5));
      const certReq = encodeTlv(0x01, Uint8Array.of(0xff));
      expect(parseTimeStampRequest(request({ ...imprint, rest: [nonce, certReq] })).certReq).to.equal(true);
      expectRefused(request({ ...imprint, version: 2 }), 'badDataFormat', /version/);
      expectRefused(request({ ...imprint, rest: [certReq, nonce] }), 'badDataFormat', /unexpected element/);
      expectRefused(request({ ...imprint, rest: [nonce, nonce] }), 'badDataFormat', /unexpected element/);
      expectRefused(request({ ...imprint, rest: [encodeTlv(TAG.OCTET_STRING, Uint8Array.of(1))] }), 'badDataFormat', /unexpected element/);
      expectRefused(request({ ...imprint, rest: [nonce, encodeTlv(0xa0, encodeTlv(TAG.SEQUENCE))] }), 'unacceptedExtension');
      expectRefused(request({ ...imprint, rest: [encodeTlv(TAG.INTEGER, new Uint8Array(65).fill(1))] }), 'badDataFormat', /nonce/);
      expectRefused(request({ ...imprint, rest: [encodeTlv(0x01, Uint8Array.of(1, 1))] }), 'badDataFormat', /certReq/);
    });

    it('encodes each failure info bit as a DER named-bit BIT STRING that decodes back', function () {
      for (const name of Object.keys(PKI_FAILURE_BITS) as PkiFailureInfo[]) {
        const der = encodeFailureInfo(name);
        expect(decodeFailureInfo(der.subarray(2))).to.deep.equal([name]);
        expect(der[der.length - 1]).to.not.equal(0); // no trailing zero octets
      }
      expect(Buffer.from(encodeFailureInfo('badDataFormat')).toString('hex')).to.equal('03020204');
      expect(decodeOid(encodeOid(TEST_POLICY).subarray(2))).to.equal(TEST_POLICY);
      expect(decodeOid(encodeOid('2.25.190444735804440080192247072126339992566').subarray(2))).to.equal('2.25.190444735804440080192247072126339992566');
    });
  });

  describe('TimeStampToken', function () {
    it('is a SignedData v3 over a TSTInfo echoing the request, signed ES384 over DER-sorted signed attributes', async function () {
      const digest = sha256('stamp me');
      const query = opensslQuery(tmp.dir, ['-digest', digest.toString('hex'), '-sha256', '-cert']);
      const request = parseTimeStampRequest(query);
      const identity = tsaIdentityOf(chain);
      const now = new Date();
      const token = await issueTimeStampToken(prepareTsaSigner(identity), { request, policy: TEST_POLICY, genTime: now });

      const ci = AsnConvert.parse(token.der, ContentInfo);
      expect(ci.contentType).to.equal(OID.signedData);
      const sd = AsnConvert.parse(ci.content, SignedData);
      expect(sd.version).to.equal(3);
      expect(sd.encapContentInfo.eContentType).to.equal(OID.tstInfo);
      expect(sd.certificates?.map((c) => Buffer.from(AsnConvert.serialize(c.certificate!)).toString('hex')).sort()).to.deep.equal(
        [chain.tsa.der, chain.subCa.der].map((d) => Buffer.from(d).toString('hex')).sort(),
      );
      const tstDer = new Uint8Array(sd.encapContentInfo.eContent!.single!.buffer);
      expect(Buffer.from(tstDer).equals(Buffer.from(token.tstInfoDer))).to.equal(true);
      const tst = AsnConvert.parse(tstDer, TSTInfo);
      expect(tst.policy).to.equal(TEST_POLICY);
      expect(Buffer.from(tst.messageImprint.hashedMessage.buffer).equals(digest)).to.equal(true);
      expect(Buffer.from(AsnConvert.serialize(tst.messageImprint)).equals(Buffer.from(request.messageImprintDer))).to.equal(true);
      expect(Buffer.from(tst.nonce!).toString('hex')).to.equal(Buffer.from(request.nonceDer!.subarray(2)).toString('hex'));
      expect(tst.serialNumber.byteLength).to.equal(16);
      expect(Buffer.from(tst.serialNumber).toString('hex')).to.equal(token.serialHex);
      expect(tst.genTime.getTime()).to.equal(Math.floor(now.getTime() / 1000) * 1000);
      expect(tst.accuracy?.seconds).to.equal(1);

      const [si] = sd.signerInfos;
      expect(si!.version).to.equal(1);
      expect(si!.digestAlgorithm.algorithm).to.equal('2.16.840.1.101.3.4.2.2');
      expect(si!.signatureAlgorithm.algorithm).to.equal('1.2.840.10045.4.3.3');
      expect(Buffer.from(si!.sid.issuerAndSerialNumber!.serialNumber).toString('hex').replace(/^00/, '')).to.equal(chain.tsa.facts.serialHex);
      const attrs = si!.signedAttrs!;
      const byType = new Map(attrs.map((a) => [a.attrType, new Uint8Array(a.attrValues[0]!)]));
      expect([...byType.keys()].sort()).to.deep.equal([OID.contentType, OID.messageDigest, OID.signingCertificateV2].sort());
      // messageDigest = SHA-384 of the TSTInfo; ESS certHash = SHA-256 of the TSA certificate.
      expect(Buffer.from(byType.get(OID.messageDigest)!.subarray(2)).equals(createHash('sha384').update(tstDer).digest())).to.equal(true);
      expect(Buffer.from(byType.get(OID.signingCertificateV2)!).includes(sha256(chain.tsa.der))).to.equal(true);
      // DER SET OF: attribute encodings in ascending order; the signature is over them with the SET tag.
      const encoded = attrs.map((a) => Buffer.from(AsnConvert.serialize(a)));
      expect(encoded.map((e) => e.toString('hex'))).to.deep.equal([...encoded].sort(Buffer.compare).map((e) => e.toString('hex')));
      const signedSet = Buffer.concat([Buffer.from([0x31]), derLength(Buffer.concat(encoded).length), ...encoded]);
      const tsaKey = new X509Certificate(Buffer.from(chain.tsa.der)).publicKey;
      expect(verify('sha384', signedSet, { key: tsaKey, dsaEncoding: 'der' }, Buffer.from(si!.signature.buffer))).to.equal(true);
    });

    it('carries no certificates when the request does not ask for them; serials never repeat', async function () {
      const request = parseTimeStampRequest(buildTimeStampRequest({ hashAlgorithm: 'sha256', hashedMessage: new Uint8Array(32) }));
      const signer = prepareTsaSigner(tsaIdentityOf(chain));
      const tokens = await Promise.all(Array.from({ length: 200 }, () => issueTimeStampToken(signer, { request, policy: TEST_POLICY, genTime: new Date() })));
      expect(new Set(tokens.map((t) => t.serialHex)).size).to.equal(200);
      const sd = AsnConvert.parse(AsnConvert.parse(tokens[0]!.der, ContentInfo).content, SignedData);
      expect(sd.certificates).to.equal(undefined);
      expect(AsnConvert.parse(tokens[0]!.tstInfoDer, TSTInfo).nonce).to.equal(undefined);
    });

    it('checkTimeStampToken reads DER tokens fast and BER ones (indefinite lengths) the lenient way', async function () {
      const data = new TextEncoder().encode('imprint input');
      const request = parseTimeStampRequest(buildTimeStampRequest({ hashAlgorithm: 'sha384', hashedMessage: createHash('sha384').update(data).digest(), nonce: Uint8Array.of(0x33), certReq: true }));
      const token = await issueTimeStampToken(prepareTsaSigner(tsaIdentityOf(chain)), { request, policy: '2.25.190444735804440080192247072126339992566', genTime: new Date() });
      const info = checkTimeStampToken(token.der, data);
      expect([info.hashAlgorithm, info.nonce, info.serial, info.policy]).to.deep.equal(['sha384', '33', token.serialHex, '2.25.190444735804440080192247072126339992566']);
      // The same ContentInfo with an indefinite outer length (BER, as some TSAs send).
      const inner = readChildren(token.der, readSingle(token.der)).map((t) => token.der.subarray(t.start, t.end));
      const ber = Uint8Array.from([0x30, 0x80, ...inner.flatMap((b) => [...b]), 0x00, 0x00]);
      expect(checkTimeStampToken(ber, data).serial).to.equal(token.serialHex);
      expect(() => checkTimeStampToken(token.der, new TextEncoder().encode('other'))).to.throw(TimeStampTokenError, /imprint does not match/);
      expect(() => checkTimeStampToken(token.der.subarray(0, 100), data)).to.throw(TimeStampTokenError, /no RFC 3161 TimeStampToken/);
    });

    it('refuses to sign with a certificate that is not a time-stamping certificate', function () {
      expect(() => prepareTsaSigner({ ...tsaIdentityOf(chain), chainDer: [chain.leaf.der, chain.subCa.der] })).to.throw(/not a time-stamping certificate/);
    });
  });

  describe('TimeStampAuthority.respond (never throws)', function () {
    const query = () => buildTimeStampRequest({ hashAlgorithm: 'sha256', hashedMessage: new Uint8Array(32).fill(1), nonce: Uint8Array.of(9), certReq: true });
    const failInfoOf = (der: Uint8Array) => parseTimeStampResponse(der).failInfo;

    it('grants a good request; refuses another policy (unacceptedPolicy) and malformed input', async function () {
      const tsa = new TimeStampAuthority({ identity: async () => tsaIdentityOf(chain), policy: TEST_POLICY });
      const granted = await tsa.respond(query());
      expect(granted.granted).to.equal(true);
      const reply = parseTimeStampResponse(granted.der);
      expect(reply.status).to.equal('granted');
      expect(reply.tokenDer).to.not.equal(undefined);
      const otherPolicy = buildTimeStampRequest({ hashAlgorithm: 'sha256', hashedMessage: new Uint8Array(32), reqPolicy: '1.2.3.4' });
      expect(failInfoOf((await tsa.respond(otherPolicy)).der)).to.deep.equal(['unacceptedPolicy']);
      const same = buildTimeStampRequest({ hashAlgorithm: 'sha256', hashedMessage: new Uint8Array(32), reqPolicy: TEST_POLICY });
      expect((await tsa.respond(same)).granted).to.equal(true);
      const garbage = await tsa.respond(randomBytes(50));
      expect([garbage.granted, failInfoOf(garbage.der)]).to.deep.equal([false, ['badDataFormat']]);
      expect(parseTimeStampResponse(garbage.der).status).to.equal('rejection');
    });

    it('systemFailure without a certificate, outside its validity, with the vault down, and when busy', async function () {
      const none = new TimeStampAuthority({ identity: async () => Promise.reject(new NoTsaCertificateError()), policy: TEST_POLICY });
      expect(failInfoOf((await none.respond(query())).der)).to.deep.equal(['systemFailure']);

      const expired = new TimeStampAuthority({ identity: async () => ({ ...tsaIdentityOf(chain), notAfter: new Date(Date.now() - 1000) }), policy: TEST_POLICY });
      expect(failInfoOf((await expired.respond(query())).der)).to.deep.equal(['systemFailure']);

      const downKey: VaultKey = { ...chain.keys.tsa, signEs384: async () => Promise.reject(new VaultUnavailableError('vault down (test)')) };
      const down = new TimeStampAuthority({ identity: async () => ({ ...tsaIdentityOf(chain), key: downKey }), policy: TEST_POLICY });
      const downAnswer = parseTimeStampResponse((await down.respond(query())).der);
      expect(downAnswer.failInfo).to.deep.equal(['systemFailure']);
      expect(downAnswer.statusText.join(' ')).to.include('retry later');

      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const slowKey: VaultKey = { ...chain.keys.tsa, signEs384: async (d) => gate.then(() => chain.keys.tsa.signEs384(d)) };
      const busy = new TimeStampAuthority({ identity: async () => ({ ...tsaIdentityOf(chain), key: slowKey }), policy: TEST_POLICY, maxConcurrentSignatures: 1, maxQueuedSignatures: 1 });
      const first = busy.respond(query());
      const second = busy.respond(query());
      const third = await busy.respond(query());
      expect(failInfoOf(third.der)).to.deep.equal(['systemFailure']);
      release();
      expect([(await first).granted, (await second).granted]).to.deep.equal([true, true]);
      expect((await busy.respond(query())).granted).to.equal(true);
    });

    it('cachedTsaIdentity reloads after its maximum age, after expiry, on invalidate and after a failure', async function () {
      let clock = 1_000_000;
      let loads = 0;
      let fail = false;
      const identity = tsaIdentityOf(chain);
      const cache = cachedTsaIdentity(async () => {
        loads += 1;
        if (fail) throw new Error('db down');
        return { ...identity, notAfter: new Date(clock + 10_000) };
      }, { maxAgeMs: 5000, now: () => clock });
      await cache.get();
      await cache.get();
      expect(loads).to.equal(1);
      clock += 5000;
      await cache.get();
      expect(loads).to.equal(2);
      cache.invalidate();
      await cache.get();
      expect(loads).to.equal(3);
      clock += 4000; // still young, but
      const id = await cache.get();
      clock = id.notAfter.getTime(); // expired now
      await cache.get();
      expect(loads).to.equal(4);
      fail = true;
      cache.invalidate();
      await cache.get().catch(() => undefined);
      fail = false;
      await new Promise((r) => setImmediate(r));
      await cache.get();
      expect(loads).to.equal(6);
    });
  });
});

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
