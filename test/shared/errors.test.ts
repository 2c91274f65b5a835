import { expect } from 'chai';
import express from 'express';
import { pinoHttp } from 'pino-http';
import request from 'supertest';
import { TokenError } from '../../api/auth/tokens.js';
import { ApiError, errorHandler, HTTP_STATUS, LOG_LEVEL } from '../../api/errors.js';
import { OCSP_STATUS, failureAnswer } from '../../ocsp/answers.js';
import { OcspOverloadedError, OcspRefusedError } from '../../ocsp/source.js';
import { C2paError } from '../../shared/c2pa/errors.js';
import { ManifestInputError } from '../../shared/c2pa/parse-manifest.js';
import { SourceTooLargeError } from '../../shared/c2pa/sign-asset.js';
import { ERROR_KINDS, kindOf, ServiceError, type ErrorKind } from '../../shared/errors.js';
import { MediaRejectedError } from '../../shared/media/errors.js';
import { PkiError } from '../../shared/pki/errors.js';
import { OcspMalformedRequestError } from '../../shared/pki/ocsp-request.js';
import { NoSigningCertificateError } from '../../shared/pki/signing-identity.js';
import { FileTooLargeError } from '../../shared/storage/staging.js';
import { StorageUnavailableError } from '../../shared/storage/types.js';
import { NoTsaCertificateError, TSA_FAIL_INFO } from '../../shared/tsa/authority.js';
import { TimestampUnavailableError } from '../../shared/tsa/client.js';
import { TimeStampRequestError } from '../../shared/tsa/protocol.js';
import { TimeStampTokenError } from '../../shared/tsa/token-check.js';
import { VaultKeyNotFoundError, VaultUnavailableError } from '../../shared/vault/types.js';
import { JOB_RETRIES } from '../../workers/sign-job/outcome.js';
import { RecordingLogger } from '../support/recording-logger.js';

/** Every domain error that reaches an edge, with the kind and outward code it carries. */
const DOMAIN_ERRORS: [ServiceError, ErrorKind, string][] = [
  [new ApiError('conflict', 'last_admin', 'x'), 'conflict', 'last_admin'],
  [new TokenError('token_expired', 'refresh token has expired'), 'unauthenticated', 'token_expired'],
  [new MediaRejectedError('empty', 'the file is empty'), 'invalid', 'empty_file'],
  [new MediaRejectedError('unsupported', 'x'), 'unsupported', 'unsupported_media_type'],
  [new MediaRejectedError('corrupt', 'x', 'image/png'), 'invalid', 'corrupt_image'],
  [new MediaRejectedError('corrupt', 'x', 'video/mp4'), 'invalid', 'corrupt_media'],
  [new MediaRejectedError('corrupt', 'x'), 'invalid', 'corrupt_media'],
  [new MediaRejectedError('too_large', 'x'), 'too_large', 'payload_too_large'],
  [new MediaRejectedError('too_many_pixels', 'x'), 'unprocessable', 'image_too_large'],
  [new MediaRejectedError('too_complex', 'x'), 'unprocessable', 'media_too_complex'],
  [new ManifestInputError('title', 'is required'), 'invalid', 'validation_error'],
  [new FileTooLargeError(10), 'too_large', 'payload_too_large'],
  [new StorageUnavailableError('ECONNREFUSED'), 'unavailable', 'storage_unavailable'],
  [new VaultUnavailableError('timeout'), 'unavailable', 'vault_unavailable'],
  [new VaultKeyNotFoundError('leaf'), 'internal', 'vault_key_missing'],
  [new NoSigningCertificateError(), 'unavailable', 'no_signing_certificate'],
  [new TimestampUnavailableError('refused', { url: 'http://tsa' }), 'unavailable', 'timestamp_unavailable'],
  [new TimeStampTokenError('imprint does not match'), 'unavailable', 'timestamp_unavailable'],
  [new C2paError('c2pa-rs said no'), 'internal', 'c2pa_error'],
  [new SourceTooLargeError(2 ** 31), 'internal', 'c2pa_error'],
  [new PkiError('x', 'not_initialised'), 'unavailable', 'not_initialised'],
  [new PkiError('x', 'not_found'), 'not_found', 'not_found'],
  [new PkiError('x', 'invalid'), 'invalid', 'invalid'],
  [new PkiError('x', 'key_mismatch'), 'unavailable', 'key_mismatch'],
  [new OcspRefusedError('malformedRequest', 'x'), 'invalid', 'malformed_request'],
  [new OcspRefusedError('unauthorized', 'x'), 'forbidden', 'unauthorized'],
  [new OcspOverloadedError(), 'unavailable', 'ocsp_overloaded'],
  [new OcspMalformedRequestError('x'), 'invalid', 'malformed_request'],
  [new TimeStampRequestError('badAlg', 'x'), 'unsupported', 'timestamp_request_refused'],
  [new TimeStampRequestError('badDataFormat', 'x'), 'invalid', 'timestamp_request_refused'],
  [new TimeStampRequestError('unacceptedExtension', 'x'), 'unsupported', 'timestamp_request_refused'],
  [new NoTsaCertificateError(), 'unavailable', 'no_tsa_certificate'],
];

/** The HTTP edge as the API runs it: a route that throws `err`, then the error handler; logged to `logs` when given. */
function answerOf(err: unknown, logs?: RecordingLogger) {
  const app = express();
  if (logs) app.use(pinoHttp({ logger: logs.pino() }));
  app.get('/', () => {
    throw err;
  });
  app.use(errorHandler);
  return request(app).get('/');
}

describe('error kinds and their edges', () => {
  it('every edge maps every kind, and nothing else', () => {
    for (const table of [HTTP_STATUS, LOG_LEVEL, OCSP_STATUS, JOB_RETRIES, TSA_FAIL_INFO]) expect(Object.keys(table)).to.have.members([...ERROR_KINDS]);
  });

  it('each domain error carries its kind and code, and keeps its own name', () => {
    for (const [err, kind, code] of DOMAIN_ERRORS) {
      expect(err, err.name).to.be.instanceOf(ServiceError);
      expect({ name: err.name, kind: err.kind, code: err.code }).to.deep.equal({ name: err.constructor.name, kind, code });
      expect(kindOf(err)).to.equal(kind);
    }
  });

  it('anything else thrown is internal', () => {
    expect(kindOf(new Error('boom'))).to.equal('internal');
    expect(kindOf('a string')).to.equal('internal');
  });

  it('HTTP: the status from the kind, the code and public message from the error, Retry-After when it says', async () => {
    const busy = await answerOf(new StorageUnavailableError('ECONNREFUSED 10.0.0.1'));
    expect(busy.status).to.equal(503);
    expect(busy.headers['retry-after']).to.equal('5');
    expect(busy.body).to.deep.equal({ error: { code: 'storage_unavailable', message: 'file storage could not be reached' } });

    const pixels = await answerOf(new MediaRejectedError('too_many_pixels', 'the image declares too many pixels'));
    expect(pixels.status).to.equal(422);
    expect(pixels.body.error).to.deep.equal({ code: 'image_too_large', message: 'the image declares too many pixels' });

    const throttled = await answerOf(new ApiError('rate_limited', 'too_many_attempts', 'try again later', { retryAfterSeconds: 42 }));
    expect([throttled.status, throttled.headers['retry-after']]).to.deep.equal([429, '42']);
  });

  it('HTTP: an internal error, a ServiceError among them, is a 500 with no detail', async () => {
    for (const err of [new Error('password=secret'), new VaultKeyNotFoundError('leaf'), new C2paError('c2pa-rs said no')]) {
      const answer = await answerOf(err);
      expect(answer.status).to.equal(500);
      expect(answer.body).to.deep.equal({ error: { code: 'internal_error', message: 'internal server error' } });
    }
  });

  it('HTTP: the log level follows the kind: refusals anyone can cause (503, 429) at warn or info, only internal failures at error', async () => {
    const cases: [unknown, number, string | null][] = [
      [new ApiError('unavailable', 'verification_busy', 'busy', { retryAfterSeconds: 5 }), 503, 'warn'],
      [new ApiError('unavailable', 'remote_fetch_busy', 'busy', { retryAfterSeconds: 2 }), 503, 'warn'],
      [new VaultUnavailableError('timeout'), 503, 'warn'],
      [new ApiError('rate_limited', 'too_many_concurrent_requests', 'wait', { retryAfterSeconds: 1 }), 429, 'info'],
      [new ApiError('rate_limited', 'rate_limited', 'later'), 429, 'info'],
      [new MediaRejectedError('too_many_pixels', 'x'), 422, null],
      [new VaultKeyNotFoundError('leaf'), 500, 'error'],
      [new Error('boom'), 500, 'error'],
    ];
    for (const [err, status, level] of cases) {
      const logs = new RecordingLogger();
      expect((await answerOf(err, logs)).status).to.equal(status);
      const own = logs.entries.filter((e) => e.msg !== 'request completed' && e.msg !== 'request errored');
      expect(own.map((e) => e.level), String(err)).to.deep.equal(level ? [level] : []);
      // The request line itself stays at info, whatever the status.
      expect(logs.entries.filter((e) => e.msg.startsWith('request ') && e.obj.res).map((e) => e.level)).to.deep.equal(['info']);
    }
  });

  it('OCSP: refusals keep their status, outages are tryLater, the rest internalError', () => {
    const status = (err: unknown) => failureAnswer(err, undefined).responseStatus;
    expect(status(new OcspRefusedError('unauthorized', 'not our issuer'))).to.equal('unauthorized');
    expect(status(new OcspMalformedRequestError('truncated'))).to.equal('malformedRequest');
    expect(status(new OcspOverloadedError())).to.equal('tryLater');
    expect(status(new VaultUnavailableError('timeout'))).to.equal('tryLater');
    expect(status(new Error('boom'))).to.equal('internalError');
  });

  it('sign jobs: retried unless the file itself is at fault', () => {
    expect(JOB_RETRIES[new MediaRejectedError('too_many_pixels', 'x').kind]).to.equal(false);
    for (const err of [new VaultUnavailableError('x'), new VaultKeyNotFoundError('k'), new C2paError('x'), new TimeStampTokenError('x'), new StorageUnavailableError('x')]) {
      expect(JOB_RETRIES[err.kind], err.name).to.equal(true);
    }
  });
});
