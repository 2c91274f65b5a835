/**
 * The shared signing path for every signed X.509-family structure the service produces: certificates,
 * CRLs, and OCSP BasicOCSPResponses (built by the OCSP module). All three share the shape
 *
 *     SEQUENCE { tbs <something>, signatureAlgorithm AlgorithmIdentifier, signature BIT STRING, ... }
 *
 * and all are signed ecdsa-with-SHA384 by a P-384 key that stays in the key vault.
 *
 * Usage:
 *
 *     const tbsDer = AsnConvert.serialize(tbsObject);            // the exact bytes to be signed
 *     const sig = await signTbs(vaultKey, new Uint8Array(tbsDer));
 *     // either let this module splice the final DER around the very same bytes:
 *     const der = assembleSigned(new Uint8Array(tbsDer), sig);     // Certificate / CertificateList
 *     const der2 = assembleSigned(tbsDer, sig, certsExplicit0);     // BasicOCSPResponse with [0] certs
 *     // or put sig.signatureAlgorithm / sig.signatureValue into an @peculiar/asn1-* object yourself
 *     // (e.g. new BasicOCSPResponse({ ..., signatureAlgorithm: sig.signatureAlgorithm,
 *     //                                signature: toArrayBuffer(sig.signatureValue) })).
 *
 * `assembleSigned` is preferred: it never re-encodes the TBS, so what is embedded is byte-for-byte what was
 * signed. Certificates and CRLs also carry the algorithm inside the TBS (`signature` field); put
 * `ecdsaWithSha384Algorithm()` there so that it matches the outer one.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import type { VaultKey } from '../vault/types.js';
import { DerError, TAG, bytesEqual, concatBytes, encodeTlv, readSingle } from './der.js';
import { ecdsaRawToDer } from './ecdsa-signature.js';

/** ecdsa-with-SHA384 (RFC 5758 section 3.2). Its AlgorithmIdentifier has NO parameters field. */
export const ECDSA_WITH_SHA384_OID = '1.2.840.10045.4.3.3';
/** DER of `AlgorithmIdentifier { ecdsa-with-SHA384 }` (parameters absent). */
export const ECDSA_WITH_SHA384_ALGORITHM_DER: Uint8Array = Uint8Array.of(
  0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03,
);

/** A fresh AlgorithmIdentifier object for ecdsa-with-SHA384 (fresh because asn1-schema objects are mutable). */
export function ecdsaWithSha384Algorithm(): AlgorithmIdentifier {
  return new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA384_OID });
}

export interface TbsSignature {
  /** ecdsa-with-SHA384, parameters absent; for asn1-schema objects. */
  signatureAlgorithm: AlgorithmIdentifier;
  /** The same AlgorithmIdentifier as DER. */
  signatureAlgorithmDer: Uint8Array;
  /**
   * DER ECDSA-Sig-Value. This is the content of the outer `signature BIT STRING` (0 unused bits);
   * asn1-schema's BIT STRING fields take it as an ArrayBuffer (see `toArrayBuffer` in der.ts).
   */
  signatureValue: Uint8Array;
}

export class PkiKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PkiKeyError';
  }
}

/** The vault returned a signature that does not verify under the key's own public key. */
export class SignatureCheckError extends Error {
  constructor(keyName: string) {
    super(`signature from vault key "${keyName}" does not verify with its public key`);
    this.name = 'SignatureCheckError';
  }
}

const publicKeys = new WeakMap<Uint8Array, KeyObject>();

/** Imports a DER SPKI and requires an EC P-384 key. */
export function p384PublicKey(spki: Uint8Array, what = 'key'): KeyObject {
  const cached = publicKeys.get(spki);
  if (cached) return cached;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  } catch (err) {
    throw new PkiKeyError(`${what}: not a valid SubjectPublicKeyInfo (${(err as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'secp384r1') {
    throw new PkiKeyError(`${what}: must be an EC P-384 key, got ${key.asymmetricKeyType} ${key.asymmetricKeyDetails?.namedCurve ?? ''}`.trim());
  }
  publicKeys.set(spki, key);
  return key;
}

/** True when both SPKIs hold the same public key (compared after normalising the encoding). */
export function samePublicKey(a: Uint8Array, b: Uint8Array): boolean {
  if (bytesEqual(a, b)) return true;
  try {
    const ea = createPublicKey({ key: Buffer.from(a), format: 'der', type: 'spki' }).export({ type: 'spki', format: 'der' });
    const eb = createPublicKey({ key: Buffer.from(b), format: 'der', type: 'spki' }).export({ type: 'spki', format: 'der' });
    return ea.equals(eb);
  } catch {
    return false;
  }
}

/** Verifies a DER ECDSA-Sig-Value with SHA-384 over `data`. */
export function verifyEs384Der(spki: Uint8Array, data: Uint8Array, derSignature: Uint8Array): boolean {
  const key = p384PublicKey(spki);
  return verify('sha384', data, { key, dsaEncoding: 'der' }, derSignature);
}

/** verifyEs384Der in libuv's thread pool, off the caller's event loop. */
function verifyEs384DerInPool(spki: Uint8Array, data: Uint8Array, derSignature: Uint8Array): Promise<boolean> {
  const key = p384PublicKey(spki);
  return new Promise((resolve, reject) => {
    verify('sha384', data, { key, dsaEncoding: 'der' }, derSignature, (err, ok) => (err ? reject(err) : resolve(ok)));
  });
}

/**
 * Signs the DER of a TBS structure (TBSCertificate, TBSCertList, ResponseData, ...) with the vault key:
 * ES384 in the vault (raw r||s), converted to DER ECDSA-Sig-Value.
 *
 * `tbsDer` must be exactly one DER SEQUENCE: the bytes that will be embedded unchanged in the final structure.
 * By default the signature is checked against `key.publicKeySpki` before it is returned (about a millisecond),
 * so a misbehaving vault or a key mix-up can never produce a structure that does not verify.
 */
export async function signTbs(
  key: VaultKey,
  tbsDer: Uint8Array,
  options: { verify?: boolean; /** Outer tag required of tbsDer; TAG.SET for CMS signed attributes (RFC 5652 5.4). */ tag?: number } = {},
): Promise<TbsSignature> {
  try {
    readSingle(tbsDer, options.tag ?? TAG.SEQUENCE);
  } catch (err) {
    if (err instanceof DerError) throw new DerError(`TBS to sign is not one DER ${options.tag === TAG.SET ? 'SET' : 'SEQUENCE'}: ${err.message}`);
    throw err;
  }
  p384PublicKey(key.publicKeySpki, `vault key "${key.name}"`);
  const raw = await key.signEs384(tbsDer);
  const signatureValue = ecdsaRawToDer(raw);
  if (options.verify !== false && !(await verifyEs384DerInPool(key.publicKeySpki, tbsDer, signatureValue))) {
    throw new SignatureCheckError(key.name);
  }
  return {
    signatureAlgorithm: ecdsaWithSha384Algorithm(),
    signatureAlgorithmDer: ECDSA_WITH_SHA384_ALGORITHM_DER.slice(),
    signatureValue,
  };
}

/**
 * `SEQUENCE { tbs, signatureAlgorithm, signature BIT STRING, ...trailing }` around the exact `tbsDer` bytes.
 * `trailing` are complete DER elements appended after the signature (e.g. a BasicOCSPResponse's `[0] certs`).
 */
export function assembleSigned(tbsDer: Uint8Array, signature: TbsSignature, ...trailing: Uint8Array[]): Uint8Array {
  const bitString = encodeTlv(TAG.BIT_STRING, Uint8Array.of(0), signature.signatureValue);
  return encodeTlv(TAG.SEQUENCE, concatBytes([tbsDer, signature.signatureAlgorithmDer, bitString, ...trailing]));
}

/** signTbs + assembleSigned. */
export async function signAndAssemble(key: VaultKey, tbsDer: Uint8Array, ...trailing: Uint8Array[]): Promise<Uint8Array> {
  return assembleSigned(tbsDer, await signTbs(key, tbsDer), ...trailing);
}
