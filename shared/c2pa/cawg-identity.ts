/**
 * A CAWG identity assertion signed with a person's X.509 certificate (CAWG identity 1.1, `cawg.x509.cose`), as
 * c2pa-wasm's builder takes it: `{sigType, reserveSize, referencedAssertions, roles, sign(payload)}`. c2pa-rs builds
 * the signer payload (it adds the hard binding to the references) and calls `sign` with it; `sign` returns a tagged
 * COSE_Sign1 whose detached payload is the CBOR of that signer payload, byte for byte as c2pa-rs serialises it:
 *
 *   {"referenced_assertions": [{"url", "alg"?, "hash"}...], "sig_type": "cawg.x509.cose", "role"?: [...]}
 *
 * (keys in that order; `role` left out when there are none). The COSE_Sign1 is the claim signature's shape
 * (cose-sign1.ts: ES384, x5chain of the person's certificate and the sub-CA, a sigTst2 timestamp), without padding:
 * c2pa-rs pads the assertion itself (`pad1`) when the reserve is larger than needed.
 */
import { Encoder } from 'cbor-x';
import type { Timestamper } from '../tsa/client.js';
import type { VaultKey } from '../vault/types.js';
import { buildCoseSign1, COSE_OVERHEAD_BYTES, TIMESTAMP_BUDGET_BYTES } from './cose-sign1.js';

/** CAWG identity 1.1 §5.1.2 (named actor roles): the vocabulary a sign request may use. */
export const CAWG_ROLES = ['cawg.creator', 'cawg.contributor', 'cawg.editor', 'cawg.producer', 'cawg.publisher', 'cawg.sponsor', 'cawg.translator'] as const;

/** The assertions the identity vouches for besides the hard binding (which c2pa-rs adds): what was done. */
const REFERENCED_ASSERTIONS = ['c2pa.actions.v2'];
/** Room for the signer payload: three or four hashed references of about 110 bytes, the type and roles. */
const PAYLOAD_BUDGET_BYTES = 1024;

/** The signer payload as c2pa-wasm hands it to `sign`. */
interface SignerPayload {
  referencedAssertions: { url: string; hash: Uint8Array; alg?: string }[];
  sigType: string;
  roles: string[];
}

/** The identity assertion definition c2pa-wasm's sign() takes (IdentityAssertionDefinition, not exported by its typings). */
export interface IdentityAssertionDefinition {
  sigType: 'cawg.x509.cose';
  reserveSize: number;
  referencedAssertions: string[];
  roles: string[];
  sign: (payload: SignerPayload) => Promise<Uint8Array<ArrayBuffer>>;
}

const cbor = new Encoder({ useRecords: false, mapsAsObjects: false, tagUint8Array: false, variableMapSize: true });

/** c2pa-rs's CBOR of the signer payload (serde, struct field order; `alg` and `role` only when present). */
export function signerPayloadCbor(payload: SignerPayload): Uint8Array {
  const refs = payload.referencedAssertions.map(
    (r) => new Map<string, unknown>([['url', r.url], ...(r.alg === undefined ? [] : [['alg', r.alg] as [string, unknown]]), ['hash', new Uint8Array(r.hash)]]),
  );
  const map = new Map<string, unknown>([
    ['referenced_assertions', refs],
    ['sig_type', payload.sigType],
  ]);
  if (payload.roles.length) map.set('role', payload.roles);
  return new Uint8Array(cbor.encode(map));
}

/** A person's identity assertion, signed with their vault key and certificate chain (their certificate, then the sub-CA). */
export function identityAssertion(options: { key: VaultKey; chainDer: readonly Uint8Array[]; roles: readonly string[]; timestamper?: Timestamper }): IdentityAssertionDefinition {
  const chainDer = [...options.chainDer];
  const certs = chainDer.reduce((n, der) => n + der.byteLength, 0);
  return {
    sigType: 'cawg.x509.cose',
    // The whole assertion: COSE (certificates, signature, timestamp) plus the payload it carries.
    reserveSize: COSE_OVERHEAD_BYTES + certs + PAYLOAD_BUDGET_BYTES + (options.timestamper ? TIMESTAMP_BUDGET_BYTES : 0),
    referencedAssertions: [...REFERENCED_ASSERTIONS],
    roles: [...options.roles],
    sign: (payload) => buildCoseSign1(signerPayloadCbor(payload), { key: options.key, chainDer, timestamper: options.timestamper }),
  };
}
