/**
 * The e-mail address and issuer of an X.509 identity (`cawg.x509.cose`), read from the certificate its own signature
 * carries: c2pa-rs reports only the subject's CN and O and the serial. The assertion's `signature` is a COSE_Sign1
 * whose x5chain (label 33) starts with the person's certificate; its subjectAltName gives the e-mail address
 * (rfc822Name) and its issuer's name the CA, worded as the service words the issuers it records (RFC 4514).
 * Read for any file, so that a person whose certificate the service never saw is named as fully as its own.
 * The input is the file's: what is too large, does not parse, or is not the certificate c2pa-rs read (its serial)
 * leaves the fields as they were.
 */
import { decode } from 'cbor-x';
import { isPlainMailbox } from '../pki/certificate-templates.js';
import { emailAddressesOf, readCertificate, type CertificateParts } from '../pki/certificate.js';
import type { IdentityView } from './identities.js';
import { coseHeadersOf, type ActiveSignature } from './signature-cose.js';

/** Far above an identity assertion's size (its signer payload, a few certificates and a timestamp token). */
const MAX_ASSERTION_BYTES = 256 * 1024;

/** The certificate an identity assertion's signature carries, when it is the one c2pa-rs reported (`serial`). */
function signerCertificate(assertion: Uint8Array | undefined, serial: string | null): CertificateParts | undefined {
  if (!assertion || !serial || assertion.byteLength > MAX_ASSERTION_BYTES) return undefined;
  try {
    const decoded: unknown = decode(assertion);
    const signature = decoded instanceof Map ? decoded.get('signature') : (decoded as { signature?: unknown } | null)?.signature;
    const leaf = signature instanceof Uint8Array ? coseHeadersOf(signature)?.x5chain[0] : undefined;
    // A copy: asn1-schema reads whole ArrayBuffers, and cbor-x gives views into the store.
    const certificate = leaf && readCertificate(new Uint8Array(leaf));
    return certificate?.facts.serialHex === serial ? certificate : undefined;
  } catch {
    return undefined;
  }
}

/** The identities with the e-mail address and issuer of their certificates filled in, where `signature` gives them. */
export function withIdentityCertificates(identities: readonly IdentityView[], signature: ActiveSignature | undefined): IdentityView[] {
  return identities.map((identity) => {
    if (identity.sig_type !== 'cawg.x509.cose') return identity;
    const certificate = signerCertificate(signature?.identityAssertions.get(identity.label), identity.serial);
    if (!certificate) return identity;
    return { ...identity, email: identity.email ?? emailAddressesOf(certificate).find(isPlainMailbox) ?? null, issuer: identity.issuer ?? certificate.facts.issuer };
  });
}
