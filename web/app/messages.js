// Errors in words. The API's codes pick the sentence; where the API's own message is the most precise
// thing to say (validation, damaged images), it is shown as a sentence. Codes never reach the page.

function sentence(text) {
  const t = String(text ?? '').trim();
  if (!t) return '';
  const s = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

function waitWords(seconds) {
  if (typeof seconds !== 'number' || seconds <= 0) return 'a few minutes';
  if (seconds < 90) return `${Math.ceil(seconds)} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

const BY_CODE = {
  network: () => 'The service could not be reached. Check your connection and try again.',
  session_ended: () => 'Your session has ended. Please sign in again.',
  invalid_credentials: () => 'The e-mail address or password is incorrect.',
  email_taken: () => 'An account with this e-mail address already exists.',
  rate_limited: (e) => `Too many attempts from this address. Please wait ${waitWords(e.retryAfter)} and try again.`,
  forbidden: () => 'Your role does not allow this. An admin of your organisation can change your role.',
  not_found: () => 'It was not found: it may have been removed, or it belongs to another organisation.',
  unsupported_media_type: (e) => `This file type is not accepted here: ${e.message}.`,
  payload_too_large: (e) => {
    const m = /(\d+) bytes/.exec(e.message);
    return m ? `The file is too large. The limit is ${(Number(m[1]) / 1024 / 1024).toFixed(0)} MB.` : 'The file is too large.';
  },
  empty_file: () => 'The file is empty.',
  corrupt_image: (e) => `The image is damaged and cannot be used: ${e.message}.`,
  corrupt_media: (e) => `The file is damaged and cannot be used: ${e.message}.`,
  upload_aborted: () => 'The upload was interrupted. Please try again.',
  unreadable_credentials: () => 'This file carries Content Credentials that are damaged and cannot be read, so nothing can be said about it.',
  verification_busy: () => 'Many files are being checked just now. Please try again in a few seconds.',
  verification_failed: () => 'The file could not be checked just now. Please try again in a few seconds.',
  verification_timeout: () => 'The file took too long to check. Please try again later.',
  image_too_large: (e) => `The image has too many pixels to be used: ${e.message}.`,
  too_many_concurrent_requests: () => 'Other checks from this address are still running. Please wait for them to finish and try again.',
  queue_unavailable: () => 'Signing is unavailable for a moment. Nothing was recorded; please try again shortly.',
  idempotency_conflict: () => 'This request clashed with an earlier one. Please start again.',
  last_admin: () => 'An organisation needs at least one admin. Make another user an admin first.',
  trust_anchor_exists: () => 'Your organisation already trusts this certificate.',
  not_a_ca_certificate: () => 'This is not a CA certificate. Add the certificate authority that issues the partner’s signing certificates, not a signing certificate itself.',
  certificate_expired: (e) => `This certificate has expired and cannot be trusted: ${e.message}.`,
  certificate_unreadable: (e) => `This is not a certificate the service can read: ${e.message}.`,
  one_certificate_expected: () => 'Add one certificate at a time: the text holds several.',
  trust_lists_unavailable: () => 'Checking files is unavailable just now: the trust lists this service uses cannot be loaded. The operator has been told; please try again later.',
  template_name_taken: () => 'Your organisation already has a template with this name. Choose another name.',
  internal_error: () => 'Something went wrong on the service. Please try again; if it keeps happening, contact support.',
  bad_response: () => 'The service gave an unexpected answer. Please try again.',
};

/** A sentence for an error thrown by the API client (or anything else). */
export function describeError(err) {
  if (err && typeof err === 'object' && typeof err.code === 'string') {
    const byCode = BY_CODE[err.code];
    if (byCode) return byCode(err);
    if (err.status >= 500) return BY_CODE.internal_error(err);
    if (err.status === 401) return BY_CODE.session_ended(err);
    // Validation and similar: the API's message names the field and the problem.
    if (err.message) return sentence(err.message);
  }
  return 'Something went wrong. Please try again.';
}

/** Why a sign job failed, in words (its message from the API is already a sentence fragment). */
export function describeJobError(error) {
  if (!error) return 'Signing failed.';
  return sentence(error.message || 'signing failed');
}

/**
 * Errors of the public verify page (no account), in words: a limit of checks per address (with the wait the
 * service gave in Retry-After), a file that is not an image the service reads, one that is too large.
 */
export function describeCheckError(err) {
  const status = err && typeof err === 'object' ? err.status : undefined;
  if (status === 429) {
    const s = err.retryAfter;
    const wait = typeof s === 'number' && s > 0 ? (s < 90 ? `${Math.ceil(s)} second${Math.ceil(s) === 1 ? '' : 's'}` : `${Math.ceil(s / 60)} minutes`) : 'a minute';
    return `Too many checks from this address. Please try again in ${wait}.`;
  }
  if (status === 415) return 'This file is not an image, video or audio format Content Credentials can be checked in.';
  if (status === 413) return BY_CODE.payload_too_large({ message: String(err.message ?? '') });
  return describeError(err);
}
