import type { ReaderManifest } from './reader-json.js';
import type { Reader } from './reader-open.js';

/** The signing certificate's names and serial, as a file's manifest gives them. */

export interface SignerInfo {
  /** Distinguished names as "C=US, O=Example, CN=Leaf", in certificate order. */
  subject: string | null;
  /** Certificate serial number: lowercase hex, whole bytes, as `openssl x509 -serial` prints it. */
  serial: string | null;
  issuer: string | null;
}

interface CrJsonCertificateInfo {
  serialNumber?: string;
  issuer?: Record<string, string>;
  subject?: Record<string, string>;
}
interface CrJson {
  manifests?: { label?: string; signature?: { certificateInfo?: CrJsonCertificateInfo } }[];
}

/**
 * Whole bytes, lowercase, no sign-padding 00 byte: the form `openssl x509 -serial` and node's
 * X509Certificate.serialNumber print (crJSON drops a leading zero nibble, e.g. "dd0c..." for "0DD0C...").
 */
function serialHex(hex: string): string {
  const digits = hex.toLowerCase().replace(/^0+/, '') || '0';
  return digits.length % 2 ? `0${digits}` : digits;
}

const dn = (name: Record<string, string> | undefined) =>
  name && Object.keys(name).length ? Object.entries(name).map(([k, v]) => `${k}=${v}`).join(', ') : null;

/**
 * The signing certificate's names and serial. c2pa-rs's Reader JSON only has CN, issuer O and a decimal
 * serial; its crJSON has the full subject, issuer and hex serial, so that is preferred.
 */
export function signerOf(reader: Reader, label: string, manifest: ReaderManifest): SignerInfo | null {
  let cert: CrJsonCertificateInfo | undefined;
  try {
    cert = (JSON.parse(reader.crJson()) as CrJson).manifests?.find((m) => m.label === label)?.signature?.certificateInfo;
  } catch {
    cert = undefined; // crJSON is a convenience; fall back to signature_info below.
  }
  const sig = manifest.signature_info;
  const decimalSerial = sig?.cert_serial_number;
  const hex = cert?.serialNumber ?? (decimalSerial && /^\d+$/.test(decimalSerial) ? BigInt(decimalSerial).toString(16) : undefined);
  const serial = hex && /^[0-9a-fA-F]+$/.test(hex) ? serialHex(hex) : null;
  const subject = dn(cert?.subject) ?? (sig?.common_name ? `CN=${sig.common_name}` : null);
  const issuer = dn(cert?.issuer) ?? (sig?.issuer ? `O=${sig.issuer}` : null);
  if (!serial && !subject && !issuer) return null;
  return { subject, serial, issuer };
}
