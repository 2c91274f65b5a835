import type { ErrorRequestHandler, RequestHandler } from 'express';
import { StorageUnavailableError } from '../shared/storage/index.js';

/** An error meant for the client: its code and message are sent as they are. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string, code = 'validation_error') => new ApiError(400, code, message);
export const unauthenticated = (message = 'authentication required', code = 'unauthenticated') => new ApiError(401, code, message);
export const forbidden = (message = 'your role does not allow this') => new ApiError(403, 'forbidden', message);
export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} not found`);
export const conflict = (message: string, code = 'conflict') => new ApiError(409, code, message);

export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(new ApiError(404, 'not_found', `no route for ${req.method} ${req.path}`));
};

interface HttpError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
}

/** The last handler: every failure becomes {"error":{"code","message"}}; internals are logged, never sent. */
export const errorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  let status = 500;
  let code = 'internal_error';
  let message = 'internal server error';
  if (err instanceof ApiError) {
    ({ status, code, message } = err);
    for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  } else if (err instanceof StorageUnavailableError) {
    status = 503;
    code = 'storage_unavailable';
    message = 'file storage is unavailable; try again shortly';
    res.setHeader('Retry-After', '5');
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
