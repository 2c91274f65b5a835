import { ServiceError, type ErrorKind } from '../errors.js';

type PkiErrorCode = 'not_initialised' | 'not_found' | 'invalid' | 'key_mismatch';

/** No usable CA (none yet, or its vault key no longer matches) is an outage until an operator acts. */
const PKI_KINDS: Record<PkiErrorCode, ErrorKind> = { not_initialised: 'unavailable', not_found: 'not_found', invalid: 'invalid', key_mismatch: 'unavailable' };

/** A PKI operation that cannot proceed as asked (unknown serial, missing CA, ...): the message says why. */
export class PkiError extends ServiceError {
  constructor(message: string, override readonly code: PkiErrorCode) {
    super(PKI_KINDS[code], code, message);
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
