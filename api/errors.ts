import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ServiceError, type ErrorKind, type ServiceErrorOptions } from '../shared/errors.js';

/** The HTTP edge: the status of each kind of error. */
export const HTTP_STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported: 415,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

/** An error the API raises itself: its code and message are sent as they are. */
export class ApiError extends ServiceError {
  constructor(kind: ErrorKind, code: string, message: string, options: Pick<ServiceErrorOptions, 'retryAfterSeconds'> = {}) {
    super(kind, code, message, options);
    this.name = 'ApiError';
  }

  get status(): number {
    return HTTP_STATUS[this.kind];
  }
}

export const badRequest = (message: string, code = 'validation_error') => new ApiError('invalid', code, message);
export const unauthenticated = (message = 'authentication required', code = 'unauthenticated') => new ApiError('unauthenticated', code, message);
export const forbidden = (message = 'your role does not allow this') => new ApiError('forbidden', 'forbidden', message);
export const notFound = (what: string) => new ApiError('not_found', 'not_found', `${what} not found`);
export const conflict = (message: string, code = 'conflict') => new ApiError('conflict', code, message);

export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(new ApiError('not_found', 'not_found', `no route for ${req.method} ${req.path}`));
};

interface HttpError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
}

/**
 * The last handler: every failure becomes {"error":{"code","message"}}, its status from its kind; internals are
 * logged, never sent.
 */
export const errorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  let status = 500;
  let code = 'internal_error';
  let message = 'internal server error';
  if (err instanceof ServiceError) {
    if (err.kind !== 'internal') ({ code, publicMessage: message } = err);
    status = HTTP_STATUS[err.kind];
    if (err.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(err.retryAfterSeconds));
  } else if (typeof err === 'object' && err !== null) {
    // body-parser and other http-errors style failures carry a status and a type.
    const e = err as HttpError;
    const s = e.status ?? e.statusCode;
    if (e.type === 'entity.parse.failed') {
      status = 400;
      code = 'malformed_json';
      message = 'request body is not valid JSON';
    } else if (e.type === 'entity.too.large') {
      status = 413;
      code = 'payload_too_large';
      message = 'request body is too large';
    } else if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
      status = 415;
      code = 'unsupported_media_type';
      message = 'unsupported request body encoding';
    } else if (typeof s === 'number' && s >= 400 && s < 500 && e.expose) {
      status = s;
      code = 'bad_request';
      message = 'the request could not be processed';
    }
  }
  if (status >= 500) req.log?.error({ err }, 'request failed');
  if (req.socket?.destroyed) {
    // The client went away (mid-upload, say): there is nobody to answer, but the log says what happened.
    req.log?.info({ code }, 'client disconnected before the answer');
    return;
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(status).json({ error: { code, message } });
};
