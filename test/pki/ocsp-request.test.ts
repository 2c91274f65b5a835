import { rmSync } from 'node:fs';
import { OCSPRequest } from '@peculiar/asn1-ocsp';
import { AsnConvert } from '@peculiar/asn1-schema';
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { TAG, encodeTlv } from '../../shared/pki/der.js';
import {
  OCSP_HASH_ALGORITHMS,
  OcspMalformedRequestError,
  certIdFor,
  decodeOcspGetPath,
  decodeOcspRequest,
  encodeOcspGetPath,
  encodeOcspRequest,
  issuerHashes,
  type OcspHashAlgorithm,
} from '../../shared/pki/ocsp-request.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { openssl, serialOf } from '../ocsp/support.js';

const hex = (b: Uint8Array | ArrayBuffer) => Buffer.from(b instanceof Uint8Array ? b : new Uint8Array(b)).toString('hex');

describe('OCSP request decoding', function () {
  let chain: OpensslChain;
  /** DER requests made by `openssl ocsp -reqout`. */
  const made: Record<string, Uint8Array> = {};
  const text: Record<string, string> = {};

  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  before(async function () {
    chain = await makeOpensslChain();
    const variants: Record<string, string[]> = {
      nonce: ['-issuer', 'sub-ca.pem', '-cert', 'leaf.pem'],
      plain: ['-no_nonce', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem'],
      sha256: ['-no_nonce', '-sha256', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem'],
      sha512: ['-no_nonce', '-sha512', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem'],
      two: ['-no_nonce', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem', '-cert', 'tsa.pem'],
      md5: ['-no_nonce', '-md5', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem'],
    };
    for (const [name, args] of Object.entries(variants)) {
      const file = path.join(chain.dir, `req-${name}.der`);
      const r = await openssl(['ocsp', ...args, '-reqout', file, '-req_text'], chain.dir);
      expect(r.code, r.all).to.equal(0);
      made[name] = new Uint8Array(await readFile(file));
      text[name] = r.stdout;
    }
  });

  /** "Issuer Name Hash: ..." etc. from openssl's -req_text (long values continue after a backslash-newline). */
  function printed(name: string, field: string): string[] {
    const joined = text[name]!.replace(/\\\n/g, '');
    return [...joined.matchAll(new RegExp(`${field}: ([0-9A-F]+)`, 'g'))].map((m) => m[1]!.toLowerCase());
  }

  it('decodes openssl requests: hashes, serials and CertID bytes as openssl and @peculiar/asn1-ocsp see them', function () {
    for (const [name, der] of Object.entries(made)) {
      const info = decodeOcspRequest(der);
      const peculiar = AsnConvert.parse(der, OCSPRequest);
      expect(info.certIds.map((c) => hex(c.issuerNameHash)), name).to.deep.equal(printed(name, 'Issuer Name Hash'));
      expect(info.certIds.map((c) => hex(c.issuerKeyHash)), name).to.deep.equal(printed(name, 'Issuer Key Hash'));
      expect(info.certIds.map((c) => c.serialHex), name).to.deep.equal(printed(name, 'Serial Number'));
      info.certIds.forEach((c, i) => {
        const reqCert = peculiar.tbsRequest.requestList[i]!.reqCert;
        expect(hex(c.der)).to.equal(hex(AsnConvert.serialize(reqCert)));
        expect(c.hashAlgorithmOid).to.equal(reqCert.hashAlgorithm.algorithm);
      });
      expect(info.signed).to.equal(false);
    }
    expect(decodeOcspRequest(made.plain!).certIds[0]!.serialHex).to.equal(serialOf(chain.pem.leaf));
    expect(decodeOcspRequest(made.two!).certIds.map((c) => c.serialHex)).to.deep.equal([serialOf(chain.pem.leaf), serialOf(chain.pem.tsa)]);
  });

  it('names the hash algorithm, and reports an unsupported one (MD5) without failing', function () {
    expect(decodeOcspRequest(made.plain!).certIds[0]!.hashAlgorithm).to.equal('sha1');
    expect(decodeOcspRequest(made.sha256!).certIds[0]!.hashAlgorithm).to.equal('sha256');
    expect(decodeOcspRequest(made.sha512!).certIds[0]!.hashAlgorithm).to.equal('sha512');
    const md5 = decodeOcspRequest(made.md5!).certIds[0]!;
    expect(md5.hashAlgorithm).to.equal(undefined);
    expect(md5.hashAlgorithmOid).to.equal('1.2.840.113549.2.5');
  });

  it('returns the nonce extension value as sent', function () {
    const info = decodeOcspRequest(made.nonce!);
    const ext = AsnConvert.parse(made.nonce!, OCSPRequest).tbsRequest.requestExtensions!;
    expect(hex(info.nonce!)).to.equal(hex(ext[0]!.extnValue.buffer));
    expect(info.nonce![0]).to.equal(TAG.OCTET_STRING); // RFC 8954: an OCTET STRING inside extnValue
    expect(decodeOcspRequest(made.plain!).nonce).to.equal(undefined);
  });

  it('computes CertIDs as openssl does, for every hash, and builds requests that round-trip', function () {
    for (const alg of Object.keys(OCSP_HASH_ALGORITHMS) as OcspHashAlgorithm[]) {
      const h = issuerHashes(chain.der.subCa, alg);
      expect(h.issuerNameHash.length).to.equal(OCSP_HASH_ALGORITHMS[alg].bytes);
      expect(h.issuerKeyHash.length).to.equal(OCSP_HASH_ALGORITHMS[alg].bytes);
    }
    expect(hex(certIdFor(chain.der.subCa, serialOf(chain.pem.leaf)))).to.equal(hex(decodeOcspRequest(made.plain!).certIds[0]!.der));
    expect(hex(certIdFor(chain.der.subCa, serialOf(chain.pem.leaf), 'sha256'))).to.equal(hex(decodeOcspRequest(made.sha256!).certIds[0]!.der));
    expect(hex(encodeOcspRequest([certIdFor(chain.der.subCa, serialOf(chain.pem.leaf))]))).to.equal(hex(made.plain!));

    const nonce = new Uint8Array(32).fill(7);
    const built = decodeOcspRequest(encodeOcspRequest([certIdFor(chain.der.root, 'ff01')], { nonce }));
    expect(built.certIds[0]!.serialHex).to.equal('ff01');
    expect(hex(built.nonce!)).to.equal(hex(encodeTlv(TAG.OCTET_STRING, nonce)));
  });

  it('reads the GET form: percent-encoded, raw, base64url, unpadded, with a query string', function () {
    // A request whose base64 has '+', '/' and '=' in it.
    let der: Uint8Array | undefined;
    for (let serial = 1; serial < 5000 && !der; serial++) {
      for (let nonceLength = 1; nonceLength <= 3 && !der; nonceLength++) {
        const nonce = new Uint8Array(nonceLength).fill(serial & 0xff);
        const candidate = encodeOcspRequest([certIdFor(chain.der.subCa, serial.toString(16).padStart(2, '0'))], { nonce });
        const b64 = Buffer.from(candidate).toString('base64');
        if (b64.includes('+') && b64.includes('/') && b64.endsWith('=')) der = candidate;
      }
    }
    expect(der, 'no serial gave a base64 with +, / and =').to.not.equal(undefined);
    const b64 = Buffer.from(der!).toString('base64');
    const encoded = encodeOcspGetPath(der!);
    expect(encoded).to.include('%2F').and.include('%2B').and.include('%3D');
    const lowercaseEscapes = encoded.replace(/%2F/g, '%2f').replace(/%2B/g, '%2b').replace(/%3D/g, '%3d');
    const paths = [encoded, `/${b64}`, `/${Buffer.from(der!).toString('base64url')}`, `/${b64.replace(/=+$/, '')}`, `${encoded}?x=1`, lowercaseEscapes];
    for (const p of paths) expect(hex(decodeOcspGetPath(p)), p).to.equal(hex(der!));
  });

  it('rejects undecodable GET paths with OcspMalformedRequestError', function () {
    for (const p of ['/', '', '/%', '/%E0%A4%A', '/abc$def', '/a b', '/health/../x', '/====']) {
      expect(() => decodeOcspGetPath(p), p).to.throw(OcspMalformedRequestError);
    }
  });

  it('rejects every truncation, garbage, trailing bytes and wrong shapes with OcspMalformedRequestError only', function () {
    const good = made.nonce!;
    for (let n = 0; n < good.length; n++) {
      expect(() => decodeOcspRequest(good.subarray(0, n)), `prefix ${n}`).to.throw(OcspMalformedRequestError);
    }
    const bad: Record<string, Uint8Array> = {
      empty: new Uint8Array(0),
      garbage: new TextEncoder().encode('hello, this is not DER'),
      trailing: Uint8Array.from([...good, 0]),
      'empty requestList': encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE))),
      'version 2': encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE, encodeTlv(0xa0, Uint8Array.of(2, 1, 1)), encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE, certIdFor(chain.der.subCa, '01'))))),
      'indefinite length': Uint8Array.of(0x30, 0x80, 0x00, 0x00),
      'not a SEQUENCE': encodeTlv(TAG.OCTET_STRING, good),
      'CertID with 3 fields': encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.OID, Uint8Array.of(0x2b, 0x0e, 0x03, 0x02, 0x1a))), encodeTlv(TAG.OCTET_STRING, new Uint8Array(20)), encodeTlv(TAG.OCTET_STRING, new Uint8Array(20))))))),
      'huge length': Uint8Array.of(0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x30),
    };
    for (const [name, der] of Object.entries(bad)) {
      expect(() => decodeOcspRequest(der), name).to.throw(OcspMalformedRequestError);
    }
    // Random bytes: never anything but OcspMalformedRequestError (or, by chance, a valid decode).
    for (let i = 0; i < 2000; i++) {
      const mutated = Uint8Array.from(good);
      mutated[Math.floor(Math.random() * mutated.length)] = Math.floor(Math.random() * 256);
      try {
        decodeOcspRequest(mutated);
      } catch (err) {
        expect(err).to.be.instanceOf(OcspMalformedRequestError);
      }
    }
  });
});
