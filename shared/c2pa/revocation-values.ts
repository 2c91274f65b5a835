/**
 * Revocation evidence in a claim signature (C2PA 2.x §14.6 / §10.3.2.6): the OCSP answer for the signing certificate,
 * stapled in the COSE unprotected header as `rVals: {ocspVals: [OCSPResponse DER]}` with text labels, as c2pa-rs
 * 0.91 reads it. c2pa-rs takes the first entry, even with OCSP fetching off, and reports
 * signingCredential.ocsp.notRevoked (or .revoked) from it when a delegated responder signed it.
 */

/** The `rVals` header value for one stapled OCSP answer. */
export function revocationValues(ocspResponse: Uint8Array): Map<string, unknown> {
  return new Map<string, unknown>([['ocspVals', [ocspResponse]]]);
}

/**
 * Bytes the `rVals` entry takes in the COSE_Sign1, with room to spare: the labels "rVals" and "ocspVals" (15), the map
 * and array headers (2) and the byte string's header (at most 5) around the answer. 0 without an answer.
 */
export function revocationValuesReserve(ocspResponse: Uint8Array | undefined): number {
  return ocspResponse ? ocspResponse.byteLength + 32 : 0;
}
