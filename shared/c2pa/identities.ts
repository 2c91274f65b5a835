/**
 * The people (and identity providers) a manifest names: its CAWG identity assertions (`cawg.identity`,
 * `cawg.identity__1`, ...), as c2pa-rs's Reader JSON gives them, each with c2pa-rs's verdict on it:
 * - X.509 (`cawg.x509.cose`): the signer payload's roles, the certificate's CN (the person) and O (the organisation),
 *   its serial; c2pa-rs reports `cawg.identity.*` and `cawg.x509.*` codes for the assertion's URL;
 * - identity claims aggregation (`cawg.identity_claims_aggregation`, ICA): the credential's issuer (the aggregator)
 *   and the verified identities it attests; `cawg.ica.*` codes.
 * The e-mail address and the issuer of an X.509 identity are not in c2pa-rs's report: the verification pool reads
 * them from the certificate in the assertion's own signature (identity-signature.ts).
 */
import type { ReaderJson, ReaderManifest, StatusEntry } from './reader-json.js';

export type IdentityVerdict = 'trusted' | 'untrusted' | 'invalid';

export interface IdentityView {
  /** The assertion's label, e.g. cawg.identity. */
  label: string;
  sig_type: string | null;
  name: string | null;
  organisation: string | null;
  /** The certificate's subjectAltName e-mail address (X.509; identity-signature.ts); null otherwise. */
  email: string | null;
  roles: string[];
  /** Who vouches: the issuing CA's name (X.509; identity-signature.ts), or the aggregator (ICA). */
  issuer: string | null;
  /** The certificate's serial, lowercase hex (X.509). */
  serial: string | null;
  verdict: IdentityVerdict;
  /** c2pa-rs's codes for this assertion. */
  codes: { success: string[]; informational: string[]; failure: string[] };
}

interface IdentityData {
  signer_payload?: { sig_type?: string; role?: string[] };
  signature_info?: { issuer?: string; common_name?: string; cert_serial_number?: string };
  // ICA: the verifiable credential c2pa-rs read.
  issuer?: string | { id?: string; name?: string };
  credentialSubject?: { verifiedIdentities?: { name?: string; username?: string; type?: string }[] };
}

/** A CAWG identity assertion's label: cawg.identity, or another instance (cawg.identity__1...). */
export const isIdentityLabel = (label: string) => /^cawg\.identity(__\d+)?$/.test(label);
const codesAt = (entries: StatusEntry[] | undefined, label: string) => [...new Set((entries ?? []).filter((e) => e.url?.endsWith(`/${label}`)).map((e) => e.code))];

/** A failure that says only that no CAWG anchor vouches for the identity: untrusted, not invalid. */
const UNTRUSTED = new Set(['cawg.x509.credential.untrusted', 'cawg.ica.credential.untrusted', 'signingCredential.untrusted']);

function verdictOf(codes: IdentityView['codes']): IdentityVerdict {
  if (codes.failure.some((c) => !UNTRUSTED.has(c))) return 'invalid';
  if (codes.failure.length) return 'untrusted';
  return codes.success.some((c) => c.endsWith('.credential.trusted')) ? 'trusted' : 'untrusted';
}

/** The decimal serial c2pa-rs writes, as lowercase hex (the service's canonical form). */
function hexSerial(decimal: string | undefined): string | null {
  if (!decimal || !/^\d+$/.test(decimal)) return null;
  const hex = BigInt(decimal).toString(16);
  return hex.length % 2 ? `0${hex}` : hex;
}

function viewOf(label: string, data: IdentityData, json: ReaderJson): IdentityView {
  const active = json.validation_results?.activeManifest;
  const codes = { success: codesAt(active?.success, label), informational: codesAt(active?.informational, label), failure: codesAt(active?.failure, label) };
  const sigType = data.signer_payload?.sig_type ?? null;
  const roles = data.signer_payload?.role ?? [];
  if (data.signature_info) {
    // c2pa-rs's signature_info.issuer is the certificate subject's O (the person's organisation), not its issuer: the
    // issuer, like the e-mail address, is read from the certificate itself (identity-signature.ts).
    return { label, sig_type: sigType, name: data.signature_info.common_name ?? null, organisation: data.signature_info.issuer ?? null, email: null, roles, issuer: null, serial: hexSerial(data.signature_info.cert_serial_number), verdict: verdictOf(codes), codes };
  }
  const issuer = typeof data.issuer === 'string' ? data.issuer : (data.issuer?.name ?? data.issuer?.id ?? null);
  const identity = data.credentialSubject?.verifiedIdentities?.[0];
  return { label, sig_type: sigType, name: identity?.name ?? identity?.username ?? null, organisation: null, email: null, roles, issuer, serial: null, verdict: verdictOf(codes), codes };
}

/** The manifest's identity assertions, in their order. */
export function identitiesOf(json: ReaderJson, manifest: ReaderManifest | undefined): IdentityView[] {
  return (manifest?.assertions ?? []).filter((a) => isIdentityLabel(a.label)).map((a) => viewOf(a.label, (a.data ?? {}) as IdentityData, json));
}
