import { rmSync } from 'node:fs';
import { OCSPResponse, OCSPResponseStatus } from '@peculiar/asn1-ocsp';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { expect } from 'chai';
import { createHash, X509Certificate } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { certIdFor } from '../../shared/pki/ocsp-request.js';
import {
  buildOcspResponse,
  encodeGeneralizedTime,
  ocspErrorResponse,
  ocspResponderKeyHash,
  type OcspErrorStatus,
} from '../../shared/pki/ocsp-response.js';
import { verifyEs384Der } from '../../shared/pki/tbs-signer.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { openssl, parseOcspResponse, serialOf } from '../ocsp/support.js';

const hex = (b: Uint8Array | ArrayBuffer) => Buffer.from(b instanceof Uint8Array ? b : new Uint8Array(b)).toString('hex');

describe('OCSP response building', function () {
  let chain: OpensslChain;

  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  before(async function () {
    chain = await makeOpensslChain();
  });

  it('encodes GeneralizedTime in whole UTC seconds', function () {
    const der = encodeGeneralizedTime(new Date('2026-07-08T09:10:11.999Z'));
    expect(Buffer.from(der).toString('latin1')).to.equal('\x18\x0f20260708091011Z');
  });

  it('builds a signed BasicOCSPResponse: byKey, CertIDs echoed, statuses, times, nonce; openssl and @peculiar agree', async function () {
    const second = Math.floor(Date.now() / 1000) * 1000;
    const producedAt = new Date(second + 500); // milliseconds are dropped
    const thisUpdate = new Date(second);
    const nextUpdate = new Date(second + 86_400_000);
    const leafId = certIdFor(chain.der.subCa, serialOf(chain.pem.leaf));
    const tsaId = certIdFor(chain.der.subCa, serialOf(chain.pem.tsa), 'sha256');
    const otherId = certIdFor(chain.der.subCa, '0badc0de');
    const nonceExtnValue = Uint8Array.of(0x04, 0x03, 1, 2, 3);
    const der = await buildOcspResponse({
      signer: chain.keys.subCa,
      producedAt,
      nonce: nonceExtnValue,
      responses: [
        { certId: leafId, certStatus: { status: 'good' }, thisUpdate, nextUpdate },
        { certId: tsaId, certStatus: { status: 'revoked', revokedAt: new Date('2026-04-01T00:00:00Z'), reason: 'affiliationChanged' }, thisUpdate, nextUpdate },
        { certId: otherId, certStatus: { status: 'unknown' }, thisUpdate },
      ],
    });

    const { status, basic } = parseOcspResponse(der);
    expect(status).to.equal(OCSPResponseStatus.successful);
    const data = basic!.tbsResponseData;
    expect(hex(data.responderID.byKey!.buffer)).to.equal(hex(ocspResponderKeyHash(chain.keys.subCa.publicKeySpki)));
    // KeyHash: SHA-1 of the BIT STRING contents, i.e. of the 97-byte uncompressed P-384 point ending the SPKI.
    const spki = new X509Certificate(chain.pem.subCa).publicKey.export({ format: 'der', type: 'spki' });
    expect(hex(data.responderID.byKey!.buffer)).to.equal(createHash('sha1').update(spki.subarray(-97)).digest('hex'));
    expect(data.producedAt.toISOString()).to.equal(thisUpdate.toISOString());
    expect(data.responses.map((r) => hex(AsnConvert.serialize(r.certID)))).to.deep.equal([hex(leafId), hex(tsaId), hex(otherId)]);
    expect(data.responses[0]!.certStatus.good).to.equal(null);
    expect(data.responses[1]!.certStatus.revoked!.revocationTime.toISOString()).to.equal('2026-04-01T00:00:00.000Z');
    expect(data.responses[1]!.certStatus.revoked!.revocationReason!.reason).to.equal(3);
    expect(data.responses[2]!.certStatus.unknown).to.equal(null);
    expect(data.responses[0]!.thisUpdate.toISOString()).to.equal(thisUpdate.toISOString());
    expect(data.responses[0]!.nextUpdate!.toISOString()).to.equal(nextUpdate.toISOString());
    expect(data.responses[2]!.nextUpdate).to.equal(undefined);
    expect(data.responseExtensions!.map((e) => [e.extnID, hex(e.extnValue.buffer)])).to.deep.equal([
      ['1.3.6.1.5.5.7.48.1.2', hex(nonceExtnValue)],
    ]);
    expect(basic!.signatureAlgorithm.algorithm).to.equal('1.2.840.10045.4.3.3');
    expect(basic!.signatureAlgorithm.parameters).to.equal(undefined);
    expect(basic!.certs).to.equal(undefined);
    // The signature covers the exact tbsResponseData bytes.
    const signed = new Uint8Array(basic!.tbsResponseDataRaw ?? AsnConvert.serialize(data));
    expect(verifyEs384Der(chain.keys.subCa.publicKeySpki, signed, new Uint8Array(basic!.signature))).to.equal(true);
    expect(verifyEs384Der(chain.keys.root.publicKeySpki, signed, new Uint8Array(basic!.signature))).to.equal(false);

    // OpenSSL reads and verifies it (-no_nonce: there is no request whose nonce it could compare).
    const file = path.join(chain.dir, 'built.der');
    await writeFile(file, der);
    const r = await openssl(
      ['ocsp', '-respin', file, '-no_nonce', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem', '-sha256', '-cert', 'tsa.pem', '-CAfile', 'root.pem', '-resp_text'],
      chain.dir,
    );
    expect(r.all, r.stderr).to.include('Response verify OK');
    expect(r.stdout).to.match(/^leaf\.pem: good$/m);
    expect(r.stdout).to.match(/^tsa\.pem: revoked$/m);
    expect(r.stdout).to.match(/Cert Status: revoked[\s\S]*Revocation Reason: affiliationChanged/);
    expect(r.all).not.to.match(/invalid|error|warning/i);
  });

  it('can carry the issuer certificate in certs', async function () {
    const now = new Date();
    const der = await buildOcspResponse({
      signer: chain.keys.root,
      producedAt: now,
      certs: [chain.der.root],
      responses: [{ certId: certIdFor(chain.der.root, serialOf(chain.pem.subCa)), certStatus: { status: 'good' }, thisUpdate: now, nextUpdate: new Date(now.getTime() + 3600_000) }],
    });
    const { basic } = parseOcspResponse(der);
    expect(basic!.certs!.map((c) => hex(AsnConvert.serialize(c)))).to.deep.equal([hex(AsnConvert.serialize(AsnConvert.parse(chain.der.root, Certificate)))]);
    const file = path.join(chain.dir, 'with-certs.der');
    await writeFile(file, der);
    const r = await openssl(['ocsp', '-respin', file, '-issuer', 'root.pem', '-cert', 'sub-ca.pem', '-CAfile', 'root.pem'], chain.dir);
    expect(r.all).to.include('Response verify OK');
    expect(r.stdout).to.match(/^sub-ca\.pem: good$/m);
  });

  it('builds the unsigned error responses', async function () {
    const statuses: Record<OcspErrorStatus, number> = { malformedRequest: 1, internalError: 2, tryLater: 3, sigRequired: 5, unauthorized: 6 };
    for (const [name, code] of Object.entries(statuses) as [OcspErrorStatus, number][]) {
      const der = ocspErrorResponse(name);
      expect(hex(der)).to.equal(`30030a01${code.toString(16).padStart(2, '0')}`);
      const parsed = AsnConvert.parse(der, OCSPResponse);
      expect(parsed.responseStatus).to.equal(code);
      expect(parsed.responseBytes).to.equal(undefined);
    }
    const file = path.join(chain.dir, 'unauthorized.der');
    await writeFile(file, ocspErrorResponse('unauthorized'));
    const r = await openssl(['ocsp', '-respin', file, '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem', '-CAfile', 'root.pem'], chain.dir);
    expect(r.all).to.match(/Responder Error: unauthorized \(6\)/);
  });
});
