import type { Request, RequestHandler, Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Config } from '../shared/config.js';
import { publicConcurrencyRejections } from '../shared/metrics/metrics.js';
import { ApiError } from './errors.js';

const AUTH_WINDOW_MS = 15 * 60 * 1000;

const PUBLIC_WINDOW_MS = 60 * 1000;

export interface RateLimiters {
  /** login, register and refresh: per client address, against password guessing and sign-up floods. */
  auth: RequestHandler;
  /** The public endpoints (verify, manifest repository, soft-binding lookups): per client address. */
  publicApi: RequestHandler;
  /** Thumbnails of recovered manifests: a result page shows up to ten, so ten times the public limit. */
  publicImages: RequestHandler;
  /**
   * The public endpoints that put work on the verification pool: at most PUBLIC_CONCURRENCY_PER_ADDRESS requests' work
   * per client address, so one client cannot hold the whole pool while others wait. It wraps the route's handler: a
   * request counts until the handler has settled, which is when its pool work has ended (done, or dropped and killed
   * once its client went away), not when its response closed.
   */
  publicConcurrency: (handler: WorkHandler) => RequestHandler;
}

/** A route handler whose promise settles once all the work it started has ended. */
type WorkHandler = (req: Request, res: Response) => Promise<void>;

/** The client's address as the limits count it: Express's req.ip, which believes TRUST_PROXY_HOPS proxies. */
export const clientAddress = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

function limiter(windowMs: number, limit: number): RequestHandler {
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    // The limiter has already set Retry-After; the body follows the service's error shape.
    handler: (_req, _res, next) => next(new ApiError('rate_limited', 'rate_limited', 'too many requests; try again later')),
  });
}

/**
 * Requests at work per client address (Express's req.ip, which believes TRUST_PROXY_HOPS proxies): past `perAddress`
 * a 429 at once. A request counts until its handler settles, so a client that hangs up cannot start more work while
 * its earlier work is still being stopped.
 */
function concurrencyLimiter(perAddress: number): (handler: WorkHandler) => RequestHandler {
  const atWork = new Map<string, number>();
  return (handler) => async (req, res) => {
    const address = clientAddress(req);
    const running = atWork.get(address) ?? 0;
    if (running >= perAddress) {
      publicConcurrencyRejections.inc();
      throw new ApiError('rate_limited', 'too_many_concurrent_requests', `at most ${perAddress} requests at a time per client on this endpoint; wait for one to finish`, { retryAfterSeconds: 1 });
    }
    atWork.set(address, running + 1);
    try {
      await handler(req, res);
    } finally {
      const left = (atWork.get(address) ?? 1) - 1;
      if (left > 0) atWork.set(address, left);
      else atWork.delete(address);
    }
  };
}

export function createRateLimiters(config: Pick<Config, 'authRateLimit' | 'publicRateLimit' | 'publicConcurrencyPerAddress'>): RateLimiters {
  return {
    auth: limiter(AUTH_WINDOW_MS, config.authRateLimit),
    publicApi: limiter(PUBLIC_WINDOW_MS, config.publicRateLimit),
    publicImages: limiter(PUBLIC_WINDOW_MS, config.publicRateLimit * 10),
    publicConcurrency: concurrencyLimiter(config.publicConcurrencyPerAddress),
  };
}
