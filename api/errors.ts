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

/**
 * The HTTP edge's log line of each kind of error, beside the request line (pino-http's, at info, with the status):
 * error for the service's own failures only. A refusal anyone can cause (the pool busy, a remote fetch slot taken, a
 * dependency down: 503; a client over its allowance: 429) is warn or info, so anonymous clients cannot fill the error
 * log; a client's own mistake needs no line beyond the request's.
 */
export const LOG_LEVEL: Record<ErrorKind, 'error' | 'warn' | 'info' | null> = {
  invalid: null,
  unauthenticated: null,
  forbidden: null,
  not_found: null,
  conflict: null,
  too_large: null,
  unsupported: null,
  unprocessable: null,
  rate_limited: 'info',
  unavailable: 'warn',
  internal: 'error',
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
 * logged, never sent; the log line's level is the kind's (LOG_LEVEL).
 */
export const errorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  let status = 500;
  let code = 'internal_error';
  let message = 'internal server error';
  let kind: ErrorKind = 'internal';
  if (err instanceof ServiceError) {
    kind = err.kind;
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
    if (status < 500) kind = 'invalid';
  }
  const level = LOG_LEVEL[kind];
  // The client went away (mid-upload, or its verification was stopped): there is nobody to answer, and what failed
  // for it deserves no more than the line saying so, unless the service itself failed.
  const gone = req.socket?.destroyed === true;
  if (level === 'error') req.log?.error({ err }, 'request failed');
  else if (level && !gone) req.log?.[level]({ code, reason: err instanceof Error ? err.message : String(err) }, 'request refused');
  if (gone) {
    req.log?.info({ code }, 'client disconnected before the answer');
    return;
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(status).json({ error: { code, message } });
};
