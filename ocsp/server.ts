/**
 * HTTP front of the OCSP responder (RFC 6960 appendix A, RFC 5019 sections 5 and 6), and the one place where
 * its answers are counted:
 *
 *   POST /<any path>   body: DER OCSPRequest (application/ocsp-request), at most maxRequestBytes (10 KiB)
 *   GET  /<base64>     RFC 5019 / 6960 A.1 GET form (what c2pa-rs sends); HEAD too
 *   GET  /health       {"status":"ok"}
 *
 * Every OCSP answer, including OCSP errors (malformedRequest, unauthorized, tryLater, internalError), is HTTP
 * 200 with Content-Type application/ocsp-response, as RFC 6960 clients expect; a body over the limit is
 * HTTP 413 carrying a malformedRequest response. Successful GET answers without a nonce carry RFC 5019
 * caching headers (max-age never beyond nextUpdate, capped by maxHttpCacheSeconds so that an HTTP cache
 * holds a pre-revocation answer at most that long; ETag = SHA-1 of the response; Last-Modified =
 * producedAt; Expires) and honour If-None-Match. Anything else is `Cache-Control: no-store`.
 *
 * Plain node:http rather than Express: the responder answers from memory in microseconds, so the framework
 * would be most of the cost (measured here on a trivial handler, ab -k -c 16: see ocsp/README.md), and three
 * routes need no router.
 *
 * Robustness: timeouts far below the spec's 10 s proxy read timeout (headers 5 s, whole request 5 s, answer
 * 4 s -> tryLater, idle keep-alive 5 s, checked every second); an empty, truncated or garbage body is a
 * malformedRequest; a client that disconnects early only loses its own answer; parse errors at the HTTP
 * level are answered 400/408/431 by the clientError handler. No request can throw out of the handler.
 *
 * Metrics: every answer written counts once in mss_ocsp_responses_total{status, cache}, here where answers are
 * sent, so the refusals made by this layer count too. status: the certificate status of a signed answer (good,
 * revoked, unknown, multiple) or the OCSP error status (a 413, an undecodable GET path and an answer past its
 * deadline included); http_405, http_400, http_408 or http_431 for a refusal without an OCSP body (a method
 * other than GET, HEAD, POST; HTTP the parser refused). cache: hit when the answer came from this process's
 * cache, miss otherwise. Not counted: /health, an answer for a client already gone, an answer finished after
 * its tryLater was sent.
 */
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ocspResponses } from '../shared/metrics/metrics.js';
import { kindOf } from '../shared/errors.js';
import { decodeOcspGetPath } from '../shared/pki/ocsp-request.js';
import { errorAnswer } from './answers.js';
import { answerWithin, createHardenedServer, HEALTH_BODY, readBoundedBody, sendJsonError, type ServerTimeouts } from './http-server.js';
import type { OcspAnswer, OcspReply } from './source.js';

export interface OcspServerOptions extends ServerTimeouts {
  /** Largest POST body accepted. Default 10240. */
  maxRequestBytes?: number;
  /** An answer not ready after this long is sent as tryLater. Default 4000. */
  answerTimeoutMs?: number;
  /** Upper bound of Cache-Control max-age on GET answers (also bounded by nextUpdate). Default 3600. */
  maxHttpCacheSeconds?: number;
  logger?: Pick<Logger, 'warn' | 'error'>;
}

/** What the server needs of the responder (OcspResponder satisfies it): never rejects. */
export interface OcspAnswerer {
  serve(requestDer: Uint8Array): Promise<OcspReply>;
}

const OCSP_RESPONSE_TYPE = 'application/ocsp-response';

function count(status: string, hit: boolean): void {
  ocspResponses.inc({ status, cache: hit ? 'hit' : 'miss' });
}

function createOcspRequestListener(
  responder: OcspAnswerer,
  options: OcspServerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const maxRequestBytes = options.maxRequestBytes ?? 10 * 1024;
  const answerTimeoutMs = options.answerTimeoutMs ?? 4000;
  const maxHttpCacheSeconds = options.maxHttpCacheSeconds ?? 3600;
  const logger = options.logger;

  function send(req: IncomingMessage, res: ServerResponse, answer: OcspAnswer, hit = false, httpStatus = 200): void {
    if (res.headersSent || res.destroyed) return;
    count(answer.responseStatus === 'successful' ? answer.certStatus : answer.responseStatus, hit);
    const headers: OutgoingHttpHeaders = { 'Content-Type': OCSP_RESPONSE_TYPE, 'Content-Length': answer.der.length };
    const isGet = req.method === 'GET' || req.method === 'HEAD';
    if (isGet && answer.responseStatus === 'successful' && !answer.nonceEchoed) {
      const now = Date.now();
      const maxAge = Math.max(0, Math.min(maxHttpCacheSeconds, Math.floor((answer.nextUpdate.getTime() - now) / 1000)));
      const etag = `"${answer.sha1Hex}"`;
      headers['Cache-Control'] = `max-age=${maxAge}, public, no-transform, must-revalidate`;
      headers.ETag = etag;
      headers['Last-Modified'] = answer.producedAt.toUTCString();
      headers.Expires = new Date(now + maxAge * 1000).toUTCString();
      const inm = req.headers['if-none-match'];
      if (inm !== undefined && (inm === etag || inm === '*' || inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))) {
        delete headers['Content-Length'];
        delete headers['Content-Type'];
        res.writeHead(304, headers);
        res.end();
        return;
      }
    } else {
      headers['Cache-Control'] = 'no-store';
    }
    res.writeHead(httpStatus, headers);
    res.end(answer.der);
  }

  function answer(req: IncomingMessage, res: ServerResponse, der: Uint8Array): void {
    answerWithin<OcspReply>(responder.serve(der), answerTimeoutMs, {
      onTimeout: () => ({ answer: errorAnswer('tryLater'), hit: false }),
      // serve() never rejects; this is a last line of defence.
      onError: (err) => {
        logger?.error({ err }, 'OCSP responder rejected');
        return { answer: errorAnswer('internalError'), hit: false };
      },
      deliver: (reply) => send(req, res, reply.answer, reply.hit),
    });
  }

  return (req, res) => {
    req.on('error', () => {}); // aborted uploads: nothing to answer
    res.on('error', () => {});
    const url = req.url ?? '/';
    const method = req.method;

    if (method === 'POST') {
      readBoundedBody(req, maxRequestBytes, (der) => answer(req, res, der), () => {
        res.setHeader('Connection', 'close');
        send(req, res, errorAnswer('malformedRequest'), false, 413);
      });
      return;
    }

    if (method === 'GET' || method === 'HEAD') {
      if (url === '/health' || url.startsWith('/health?')) {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': HEALTH_BODY.length, 'Cache-Control': 'no-store' });
        res.end(HEALTH_BODY);
        return;
      }
      let der: Uint8Array;
      try {
        der = decodeOcspGetPath(url);
      } catch (err) {
        if (kindOf(err) !== 'invalid') logger?.error({ err }, 'OCSP GET decoding failed');
        send(req, res, errorAnswer('malformedRequest'));
        req.resume();
        return;
      }
      req.resume(); // a GET body is ignored
      answer(req, res, der);
      return;
    }

    req.resume();
    if (!res.destroyed) count('http_405', false);
    sendJsonError(res, 405, 'method_not_allowed', 'use POST with a DER OCSP request, or GET', { Allow: 'GET, HEAD, POST' });
  };
}

/** An http.Server answering OCSP through `responder`, with the timeouts above. Not yet listening. */
export function createOcspServer(responder: OcspAnswerer, options: OcspServerOptions = {}): Server {
  return createHardenedServer(createOcspRequestListener(responder, options), options, (httpStatus) => count(`http_${httpStatus}`, false));
}
