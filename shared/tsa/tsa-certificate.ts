/**
 * The certificate a TSA signs its tokens with, judged against the C2PA TSA profile (shared/pki/c2pa-profile.ts) on
 * the first token of each TSA certificate a process sees: an external TSA (TSA_URL) whose certificate no validator
 * would accept fails the sign attempt with words that say why, instead of embedding timestamps that read untrusted.
 */
import { AsnConvert } from '@peculiar/asn1-schema';
import { ContentInfo, SignedData } from '@peculiar/asn1-cms';
import { createHash } from 'node:crypto';
import { c2paProfileProblems } from '../pki/c2pa-profile.js';
import { readCertificate } from '../pki/certificate.js';
import { bytesEqual } from '../pki/der.js';

/** The DER of the certificate that signed `token` (named by its SignerInfo's sid); undefined when it is not carried. */
export function tokenSignerCertificate(token: Uint8Array): Uint8Array | undefined {
  const signedData = AsnConvert.parse(AsnConvert.parse(token, ContentInfo).content, SignedData);
  const sid = signedData.signerInfos[0]?.sid;
  const certificates = (signedData.certificates ?? []).flatMap((c) => (c.certificate ? [new Uint8Array(AsnConvert.serialize(c.certificate))] : []));
  return certificates.find((der) => {
    const parts = readCertificate(der);
    if (sid?.issuerAndSerialNumber) {
      const { serialNumber, issuer } = sid.issuerAndSerialNumber;
      return bytesEqual(new Uint8Array(serialNumber), new Uint8Array(parts.certificate.tbsCertificate.serialNumber)) && bytesEqual(new Uint8Array(AsnConvert.serialize(issuer)), parts.issuerNameDer);
    }
    return sid?.subjectKeyIdentifier !== undefined && parts.facts.subjectKeyIdHex === Buffer.from(sid.subjectKeyIdentifier.buffer).toString('hex');
  });
}

/** Checks each TSA certificate once: what the timestamper of a process remembers between tokens. */
export class TsaCertificateCheck {
  private readonly passed = new Set<string>();

  /** Why the token's signer certificate does not meet the profile at `genTime`; empty when it does (or was checked before). */
  problems(token: Uint8Array, genTime: Date): string[] {
    let der: Uint8Array | undefined;
    try {
      der = tokenSignerCertificate(token);
    } catch (err) {
      return [`the token cannot be read for its certificate (${(err as Error).message})`];
    }
    if (!der) return ['the token does not carry the TSA certificate (certReq was asked for)'];
    const fingerprint = createHash('sha256').update(der).digest('hex');
    if (this.passed.has(fingerprint)) return [];
    const problems = c2paProfileProblems(der, 'tsa', { at: genTime }).map((p) => `${readCertificate(der).facts.subject}: ${p}`);
    if (problems.length === 0) this.passed.add(fingerprint);
    return problems;
  }
}
