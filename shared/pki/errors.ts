/** A PKI operation that cannot proceed as asked (unknown serial, missing CA, ...): the message says why. */
export class PkiError extends Error {
  constructor(message: string, readonly code: 'not_initialised' | 'not_found' | 'invalid' | 'key_mismatch') {
    super(message);
    this.name = 'PkiError';
  }
}

/** The revocation is recorded, but announcing it or issuing the CRL failed; revoking again retries both. */
export class RevocationFollowUpError extends Error {
  constructor(readonly serial: string, cause: unknown) {
    super(
      `certificate ${serial} is revoked in the database, but notifying the OCSP responders or issuing the CRL failed ` +
        `(${cause instanceof Error ? cause.message : String(cause)}); run the revocation again to retry`,
      { cause },
    );
    this.name = 'RevocationFollowUpError';
  }
}
