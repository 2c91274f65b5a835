import { verify, X509Certificate } from 'node:crypto';
import { Encoder, Tag } from 'cbor-x';
import type { VaultKey } from '../vault/types.js';
import type { Timestamper } from '../tsa/client.js';
import { checkTimeStampToken } from '../tsa/token-check.js';
import { revocationValues, revocationValuesReserve } from './revocation-values.js';

/**
 * The claim signature c2pa-wasm asks for. Its signer uses "direct COSE handling": `sign` receives the claim
 * bytes and must return the complete tagged COSE_Sign1 (RFC 9052), exactly `reserveSize` bytes long,
 * because c2pa-rs has already written a placeholder of that size into the asset and hashed around it.
 *
 *   COSE_Sign1 = 18([ protected: bstr .cbor {1: -35, 33: [leaf DER, sub-CA DER]},
 *                     unprotected: {? "sigTst2": {"tstTokens": [{"val": TimeStampToken}]},
 *                                   ? "rVals": {"ocspVals": [OCSPResponse]}, "pad": bstr},
 *                     payload: nil (detached: the claim),
 *                     signature: r||s (96 bytes, ES384) over ["Signature1", protected, h'', claim] ])
 */

/** COSE algorithm identifier for ECDSA with SHA-384 (RFC 9053). */
const ALG_ES384 = -35;
/** COSE header labels: alg (RFC 9052) and x5chain (RFC 9360). */
const HEADER_ALG = 1;
const HEADER_X5CHAIN = 33;
const COSE_SIGN1_TAG = 18;
const ES384_SIGNATURE_BYTES = 96;

/**
 * Bytes the COSE structure needs besides the certificates, with room to spare: tag, array and map headers,
 * alg, the 96-byte signature, the smallest `pad` entry and a 3-byte length header per certificate come to
 * 123 bytes for two certificates. 512 leaves room for a longer chain and future header fields.
 */
export const COSE_OVERHEAD_BYTES = 512;
/**
 * Room for the RFC 3161 token plus its sigTst2 wrapping (28 bytes). OpenSSL's `ts -reply` token carrying our
 * P-384 TSA and sub-CA certificates is 1.6 KB; public TSAs with RSA keys that embed their chain (certReq)
 * answer with roughly 4-6 KB. 8 KiB covers those; a larger token fails with CoseSizeError rather than
 * producing a file that does not validate (a COSE_Sign1 of the wrong length reads as assertion.dataHash.mismatch).
 */
export const TIMESTAMP_BUDGET_BYTES = 8192;

/**
 * The reserve for a chain: overhead + the certificates' DER + (with a timestamper) the token budget.
 * Computed, not fixed, because the chain is known before signing and every reserved byte is written into
 * each signed file. For the openssl test chain (546 + 532 bytes) that is 1589 bytes, or 9781 with a timestamp.
 */
export function reserveSizeFor(chainDer: readonly Uint8Array[], options: { timestamp: boolean }): number {
  const certs = chainDer.reduce((n, der) => n + der.byteLength, 0);
  return COSE_OVERHEAD_BYTES + certs + (options.timestamp ? TIMESTAMP_BUDGET_BYTES : 0);
}

export class CoseSizeError extends Error {
  constructor(readonly needed: number, readonly reserveSize: number) {
    super(`COSE_Sign1 needs ${needed} bytes but only ${reserveSize} are reserved`);
    this.name = 'CoseSizeError';
  }
}

// Canonical, definite-length CBOR: byte strings as plain bstr (no typed-array tag 64), Maps keep key types.
const cbor = new Encoder({ useRecords: false, mapsAsObjects: false, tagUint8Array: false, variableMapSize: true });

/** A copy in its own ArrayBuffer: cbor-x returns views into a reused buffer. */
function encode(value: unknown): Uint8Array<ArrayBuffer> {
  return new Uint8Array(cbor.encode(value));
}

export interface CoseSign1Options {
  key: VaultKey;
  /** Leaf first, then intermediates; leave the root out (validators hold it as a trust anchor). */
  chainDer: readonly Uint8Array[];
  /** Exact length to pad to (the claim signature); absent: no padding (a CAWG identity signature, padded by c2pa-rs). */
  reserveSize?: number;
  timestamper?: Timestamper;
  /** The signing certificate's OCSP answer (DER), stapled as rVals (revocation-values.ts). */
  ocspResponse?: Uint8Array;
}

/** The protected header bstr contents: alg and the certificate chain. */
export function protectedHeader(chainDer: readonly Uint8Array[]): Uint8Array {
  return encode(new Map<number, unknown>([[HEADER_ALG, ALG_ES384], [HEADER_X5CHAIN, [...chainDer]]]));
}

/** Sig_structure for COSE_Sign1 with a detached payload and no external AAD. */
export function sigStructure(protectedBytes: Uint8Array, claim: Uint8Array): Uint8Array {
  return encode(['Signature1', protectedBytes, new Uint8Array(0), claim]);
}

/**
 * What a C2PA v2 timestamp (sigTst2) stamps: an RFC 9338 CounterSignature structure whose payload is the
 * CBOR encoding of the signature byte string. This is what c2pa-rs rebuilds when it checks the imprint.
 */
export function timestampImprintInput(protectedBytes: Uint8Array, signature: Uint8Array): Uint8Array {
  return encode(['CounterSignature', protectedBytes, new Uint8Array(0), encode(signature)]);
}

function encodeSign1(
  protectedBytes: Uint8Array,
  unprotected: Map<string, unknown>,
  signature: Uint8Array,
): Uint8Array<ArrayBuffer> {
  return encode(new Tag([protectedBytes, unprotected, null, signature], COSE_SIGN1_TAG));
}

/** Length of a CBOR byte string of n bytes, header included. */
function bstrLength(n: number): number {
  return n + (n < 24 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);
}

/**
 * Byte counts for `pad` (and, when one string cannot hit the target, `pad2`, as c2pa-rs does) so that
 * the entries add exactly `extra` bytes. A single pad cannot add 1-4 bytes, nor the values skipped where
 * the bstr length header grows (29, 262, ...); two pads cover every gap from 11 bytes up.
 */
function padLengths(extra: number): number[] | undefined {
  const padKey = 4; // text "pad": 1 header byte + 3
  const pad2Key = 5;
  for (let n = Math.max(0, extra - padKey - 5); n <= extra; n++) {
    if (padKey + bstrLength(n) === extra) return [n];
  }
  for (let m = 0; m < 24; m++) {
    const rest = extra - pad2Key - bstrLength(m);
    for (let n = Math.max(0, rest - padKey - 5); n <= rest; n++) {
      if (padKey + bstrLength(n) === rest) return [n, m];
    }
  }
  return undefined;
}

/** Encodes the COSE_Sign1 with pad entries that bring it to exactly `reserveSize` bytes. */
export function padToReserve(
  protectedBytes: Uint8Array,
  unprotected: Map<string, unknown>,
  signature: Uint8Array,
  reserveSize: number,
): Uint8Array<ArrayBuffer> {
  const bare = encodeSign1(protectedBytes, unprotected, signature);
  if (bare.byteLength === reserveSize) return bare;
  const lengths = padLengths(reserveSize - bare.byteLength);
  // bare + 11 is always reachable (one or two pads); report that as the size needed.
  if (bare.byteLength > reserveSize || !lengths) throw new CoseSizeError(bare.byteLength + 11, reserveSize);
  const padded = new Map(unprotected);
  padded.set('pad', new Uint8Array(lengths[0]));
  if (lengths[1] !== undefined) padded.set('pad2', new Uint8Array(lengths[1]));
  const out = encodeSign1(protectedBytes, padded, signature);
  // Guards the arithmetic above (e.g. a map that grew past 23 entries would add a header byte).
  if (out.byteLength !== reserveSize) throw new CoseSizeError(out.byteLength, reserveSize);
  return out;
}

/** Signs `claim` (or a CAWG signer payload) with the vault key and returns the tagged COSE_Sign1, `reserveSize` bytes long when given. */
export async function buildCoseSign1(claim: Uint8Array, options: CoseSign1Options): Promise<Uint8Array<ArrayBuffer>> {
  const protectedBytes = protectedHeader(options.chainDer);
  const toBeSigned = sigStructure(protectedBytes, claim);
  const signature = await options.key.signEs384(toBeSigned);
  if (signature.byteLength !== ES384_SIGNATURE_BYTES) {
    throw new Error(`vault key "${options.key.name}" returned a ${signature.byteLength}-byte signature, expected raw r||s (96)`);
  }
  // A signature that does not verify would make a file that never validates (and callers may sign without
  // c2pa-rs's verify-after-sign): checked here, against the key the leaf certificate names (coseSigner checked that).
  const publicKey = { key: Buffer.from(options.key.publicKeySpki), format: 'der' as const, type: 'spki' as const, dsaEncoding: 'ieee-p1363' as const };
  if (!verify('sha384', toBeSigned, publicKey, signature)) throw new Error(`vault key "${options.key.name}" returned a signature that does not verify`);
  const unprotected = new Map<string, unknown>();
  if (options.timestamper) {
    const imprintInput = timestampImprintInput(protectedBytes, signature);
    const token = await options.timestamper(imprintInput);
    checkTimeStampToken(token, imprintInput);
    unprotected.set('sigTst2', new Map([['tstTokens', [new Map([['val', token]])]]]));
  }
  if (options.ocspResponse) unprotected.set('rVals', revocationValues(options.ocspResponse));
  if (options.reserveSize === undefined) return encodeSign1(protectedBytes, unprotected, signature);
  return padToReserve(protectedBytes, unprotected, signature, options.reserveSize);
}

/** The shape c2pa-wasm's builder takes as its signer (SignerDefinition, not exported by its typings). */
export interface C2paSignerDefinition {
  alg: 'es384';
  reserveSize: number;
  /** Must return a Promise: c2pa-wasm awaits it, and rejects a plain return value. */
  sign: (claim: Uint8Array) => Promise<Uint8Array<ArrayBuffer>>;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/**
 * A c2pa-wasm signer backed by a vault key. Checks up front that the leaf certificate belongs to the key:
 * otherwise c2pa-rs would embed a manifest that can never validate.
 */
export function coseSigner(options: {
  key: VaultKey;
  chainDer: readonly Uint8Array[];
  timestamper?: Timestamper;
  /** The leaf's OCSP answer to staple (shared/pki/ocsp-stapler.ts); its size is added to the reserve. */
  ocspResponse?: Uint8Array;
  /** Override the computed reserve (tests); see reserveSizeFor. */
  reserveSize?: number;
}): C2paSignerDefinition {
  const [leaf] = options.chainDer;
  if (!leaf) throw new Error('certificate chain is empty: pass the leaf certificate first, then its issuers');
  // node:crypto rather than @peculiar/x509, which needs a reflect-metadata polyfill this project does not install.
  const leafSpki = new X509Certificate(leaf).publicKey.export({ type: 'spki', format: 'der' });
  if (!sameBytes(leafSpki, options.key.publicKeySpki)) {
    throw new Error(`leaf certificate does not match the public key of vault key "${options.key.name}"`);
  }
  const chainDer = [...options.chainDer];
  const reserveSize = options.reserveSize ?? reserveSizeFor(chainDer, { timestamp: Boolean(options.timestamper) }) + revocationValuesReserve(options.ocspResponse);
  return {
    alg: 'es384',
    reserveSize,
    sign: (claim) => buildCoseSign1(claim, { key: options.key, chainDer, reserveSize, timestamper: options.timestamper, ocspResponse: options.ocspResponse }),
  };
}
