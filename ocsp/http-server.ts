/**
 * What the three small node:http servers of the trust-services process (OCSP, CRL host, TSA) share: short
 * timeouts far below the spec's 10 s proxy read timeout, an answer to HTTP-level garbage instead of a hang,
 * JSON error bodies, and listen().
 */
import http, { type IncomingMessage, type OutgoingHttpHeaders, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServerTimeouts {
  /** Time allowed to receive the request headers. Default 5000. */
  headersTimeoutMs?: number;
  /** Time allowed to receive the whole request. Default 5000. */
  requestTimeoutMs?: number;
  /** Idle time before a kept-alive connection is closed. Default 5000. */
  keepAliveTimeoutMs?: number;
}

/** Headers, whole request and keep-alive idle time, unless told otherwise. */
export const DEFAULT_TIMEOUT_MS = 5000;
export const HEALTH_BODY = Buffer.from('{"status":"ok"}');
/** After a 413, request bytes still read (and dropped) before the connection is cut. */
const MAX_DRAIN_BYTES = 1024 * 1024;

/**
 * An http.Server with the timeouts above that answers malformed HTTP with 400/408/431 (each such answer is
 * reported to `onRefusal`, for the server's metrics). Not yet listening.
 */
export function createHardenedServer(listener: RequestListener, timeouts: ServerTimeouts = {}, onRefusal?: (httpStatus: number) => void): Server {
  const headersTimeout = timeouts.headersTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const server = http.createServer(
    {
      requestTimeout: Math.max(timeouts.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS, headersTimeout),
      headersTimeout,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      // How often request and header timeouts are checked (node's default, 30 s, would let them overrun).
      connectionsCheckingInterval: 1000,
    },
    listener,
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout'
      : err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large'
      : '400 Bad Request';
    onRefusal?.(Number(status.slice(0, 3)));
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  return server;
}

/** A JSON error body {"error":{"code","message"}}, never cached; a no-op once the response has started. */
export function sendJsonError(res: ServerResponse, status: number, code: string, message: string, extra: OutgoingHttpHeaders = {}): void {
  if (res.headersSent || res.destroyed) return;
  const body = Buffer.from(JSON.stringify({ error: { code, message } }));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': body.length, 'Cache-Control': 'no-store', ...extra });
  res.end(body);
}

/** Starts listening; resolves with the bound address (port 0 picks a free port). */
export function listenServer(server: Server, port: number, host = '0.0.0.0'): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** After a refusal, reads and drops what the client still sends (so it can read the answer rather than a reset), up to a bound. */
export function drainAfterRefusal(req: IncomingMessage): void {
  let drained = 0;
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > MAX_DRAIN_BYTES) req.socket.destroy();
  });
  req.resume();
}

/**
 * Collects a request body of at most `maxBytes` (checking Content-Length first, then the bytes as they
 * arrive) and hands it to `onBody`; past the limit `onTooLarge` runs once and the rest is drained.
 */
export function readBoundedBody(req: IncomingMessage, maxBytes: number, onBody: (body: Uint8Array) => void, onTooLarge: () => void): void {
  const refuse = () => {
    onTooLarge();
    drainAfterRefusal(req);
  };
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) {
    refuse();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  req.on('data', (chunk: Buffer) => {
    if (over) return;
    size += chunk.length;
    if (size > maxBytes) {
      over = true;
      refuse();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (!over) onBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  });
}

/**
 * Delivers `work`'s answer, or `onTimeout()`'s if it is not ready within `timeoutMs` (a late answer is then
 * dropped), or `onError(err)`'s if it fails. Exactly one answer is delivered.
 */
export function answerWithin<T>(work: Promise<T>, timeoutMs: number, handlers: { onTimeout: () => T; onError: (err: unknown) => T; deliver: (answer: T) => void }): void {
  let done = false;
  const finish = (answer: () => T) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    handlers.deliver(answer());
  };
  const timer = setTimeout(() => finish(handlers.onTimeout), timeoutMs);
  work.then((a) => finish(() => a), (err: unknown) => finish(() => handlers.onError(err)));
}
