/**
 * PKCS#10 certification requests (RFC 2986) for a vault key: what an organisation sends an external CA. The request
 * asks, in its extensionRequest attribute (PKCS#9), for the extensions the C2PA certificate profile requires of a
 * claim signer (c2pa-profile.ts); for a person's identity certificate (CAWG X.509, the same profile applied to the
 * actor), EKU emailProtection and their e-mail address in subjectAltName, as the service CA issues them. Signed
 * ecdsa-with-SHA384 by the key itself in the vault (tbs-signer.ts).
 */
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  Attribute,
  BasicConstraints,
  ExtendedKeyUsage,
  Extension,
  Extensions,
  KeyUsage,
  KeyUsageFlags,
  SubjectAlternativeName,
  id_ce_basicConstraints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectAltName,
} from '@peculiar/asn1-x509';
import type { VaultKey } from '../vault/types.js';
import { C2PA_ACCEPTED_EKUS, buildSubjectName, rfc822Name, type SubjectInput } from './certificate-templates.js';
import { TAG, concatBytes, encodeTlv } from './der.js';
import { derToPem } from './pem.js';
import { signAndAssemble } from './tbs-signer.js';

/** PKCS#9 extensionRequest. */
const EXTENSION_REQUEST_OID = '1.2.840.113549.1.9.14';

/** The EKUs asked for: document signing (what C2PA 2.2 names first) and e-mail protection (what every validator accepts). */
export const REQUESTED_EKUS = [C2PA_ACCEPTED_EKUS.documentSigning, C2PA_ACCEPTED_EKUS.emailProtection] as const;

function extension(extnID: string, critical: boolean, value: unknown): Extension {
  return new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

/**
 * The claim-signer extensions: keyUsage digitalSignature (critical), EKU, basicConstraints CA:FALSE (critical); for a
 * person (`email`), EKU emailProtection alone and the address in subjectAltName.
 */
function claimSignerExtensions(email: string | undefined): Extensions {
  const ekus = email === undefined ? [...REQUESTED_EKUS] : [C2PA_ACCEPTED_EKUS.emailProtection];
  return new Extensions([
    extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.digitalSignature)),
    extension(id_ce_extKeyUsage, false, new ExtendedKeyUsage(ekus)),
    extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: false })),
    ...(email === undefined ? [] : [extension(id_ce_subjectAltName, false, new SubjectAlternativeName([rfc822Name(email)]))]),
  ]);
}

/** A PEM CERTIFICATE REQUEST for `key` with `subject`, signed by `key`; with `email`, for a person's identity certificate. */
export async function buildCsr(key: VaultKey, subject: SubjectInput, email?: string): Promise<string> {
  const attribute = new Attribute({ type: EXTENSION_REQUEST_OID, values: [AsnConvert.serialize(claimSignerExtensions(email))] });
  const info = encodeTlv(
    TAG.SEQUENCE,
    concatBytes([
      Uint8Array.of(TAG.INTEGER, 1, 0), // version v1(0)
      new Uint8Array(AsnConvert.serialize(buildSubjectName(subject))),
      key.publicKeySpki,
      encodeTlv(0xa0, new Uint8Array(AsnConvert.serialize(attribute))), // attributes [0] IMPLICIT SET OF Attribute
    ]),
  );
  return derToPem(await signAndAssemble(key, info), 'CERTIFICATE REQUEST');
}
