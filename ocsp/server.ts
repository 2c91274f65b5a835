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
import { addFastLane, type AnswerSink, type PlainRequestHandler } from './fast-lane.js';
import { answerWithin, createHardenedServer, DEFAULT_TIMEOUT_MS, HEALTH_BODY, readBoundedBody, sendJsonError, type ServerTimeouts } from './http-server.js';
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

/** What the HTTP edge answers through: an OcspAnswerer, or one that answers at once when it can (a front's copy). */
export interface OcspEdgeAnswerer {
  serve(requestDer: Uint8Array): OcspReply | Promise<OcspReply>;
}

const OCSP_RESPONSE_TYPE = 'application/ocsp-response';

function count(status: string, hit: boolean): void {
  ocspResponses.inc({ status, cache: hit ? 'hit' : 'miss' });
}

/** The sink of a request node:http read. */
function responseSink(res: ServerResponse): AnswerSink {
  return {
    get done() {
      return res.headersSent || res.destroyed;
    },
    send(status, headers, body) {
      res.writeHead(status, headers);
      res.end(body);
    },
  };
}

/** What both lanes call: an OCSP answer for a request body or GET path, written to a sink, counted once. */
function createOcspExchange(responder: OcspEdgeAnswerer, options: OcspServerOptions) {
  const answerTimeoutMs = options.answerTimeoutMs ?? 4000;
  const maxHttpCacheSeconds = options.maxHttpCacheSeconds ?? 3600;
  const logger = options.logger;

  function send(sink: AnswerSink, isGet: boolean, ifNoneMatch: string | undefined, answer: OcspAnswer, hit = false, httpStatus = 200): void {
    if (sink.done) return;
    count(answer.responseStatus === 'successful' ? answer.certStatus : answer.responseStatus, hit);
    const headers: OutgoingHttpHeaders = { 'Content-Type': OCSP_RESPONSE_TYPE, 'Content-Length': answer.der.length };
    if (isGet && answer.responseStatus === 'successful' && !answer.nonceEchoed) {
      const now = Date.now();
      const maxAge = Math.max(0, Math.min(maxHttpCacheSeconds, Math.floor((answer.nextUpdate.getTime() - now) / 1000)));
      const etag = `"${answer.sha1Hex}"`;
      headers['Cache-Control'] = `max-age=${maxAge}, public, no-transform, must-revalidate`;
      headers.ETag = etag;
      headers['Last-Modified'] = answer.producedAt.toUTCString();
      headers.Expires = new Date(now + maxAge * 1000).toUTCString();
      const inm = ifNoneMatch;
      if (inm !== undefined && (inm === etag || inm === '*' || inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))) {
        delete headers['Content-Length'];
        delete headers['Content-Type'];
        sink.send(304, headers);
        return;
      }
    } else {
      headers['Cache-Control'] = 'no-store';
    }
    sink.send(httpStatus, headers, answer.der);
  }

  function answer(sink: AnswerSink, isGet: boolean, ifNoneMatch: string | undefined, der: Uint8Array): void {
    const served = responder.serve(der);
    if (!(served instanceof Promise)) {
      send(sink, isGet, ifNoneMatch, served.answer, served.hit);
      return;
    }
    answerWithin<OcspReply>(served, answerTimeoutMs, {
      onTimeout: () => ({ answer: errorAnswer('tryLater'), hit: false }),
      // serve() never rejects; this is a last line of defence.
      onError: (err) => {
        logger?.error({ err }, 'OCSP responder rejected');
        return { answer: errorAnswer('internalError'), hit: false };
      },
      deliver: (reply) => send(sink, isGet, ifNoneMatch, reply.answer, reply.hit),
    });
  }

  /** GET and HEAD: /health, or an RFC 5019 request in the path. */
  function get(sink: AnswerSink, url: string, ifNoneMatch: string | undefined): void {
    if (url === '/health' || url.startsWith('/health?')) {
      sink.send(200, { 'Content-Type': 'application/json', 'Content-Length': HEALTH_BODY.length, 'Cache-Control': 'no-store' }, HEALTH_BODY);
      return;
    }
    let der: Uint8Array;
    try {
      der = decodeOcspGetPath(url);
    } catch (err) {
      if (kindOf(err) !== 'invalid') logger?.error({ err }, 'OCSP GET decoding failed');
      send(sink, true, ifNoneMatch, errorAnswer('malformedRequest'));
      return;
    }
    answer(sink, true, ifNoneMatch, der);
  }

  /** The fast lane's requests (ocsp/fast-lane.ts): whole, with their body. */
  const plain: PlainRequestHandler = (request, sink) => {
    if (request.method === 'POST') answer(sink, false, undefined, request.body);
    else get(sink, request.url, request.ifNoneMatch);
  };

  return { send, answer, get, plain };
}

function createOcspRequestListener(
  exchange: ReturnType<typeof createOcspExchange>,
  maxRequestBytes: number,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    req.on('error', () => {}); // aborted uploads: nothing to answer
    res.on('error', () => {});
    const sink = responseSink(res);
    const method = req.method;

    if (method === 'POST') {
      readBoundedBody(req, maxRequestBytes, (der) => exchange.answer(sink, false, undefined, der), () => {
        res.setHeader('Connection', 'close');
        exchange.send(sink, false, undefined, errorAnswer('malformedRequest'), false, 413);
      });
      return;
    }

    if (method === 'GET' || method === 'HEAD') {
      req.resume(); // a GET body is ignored
      exchange.get(sink, req.url ?? '/', req.headers['if-none-match']);
      return;
    }

    req.resume();
    if (!res.destroyed) count('http_405', false);
    sendJsonError(res, 405, 'method_not_allowed', 'use POST with a DER OCSP request, or GET', { Allow: 'GET, HEAD, POST' });
  };
}

/** An http.Server answering OCSP through `responder`, with the timeouts above. Not yet listening. */
export function createOcspServer(responder: OcspEdgeAnswerer, options: OcspServerOptions = {}): Server {
  const maxRequestBytes = options.maxRequestBytes ?? 10 * 1024;
  const exchange = createOcspExchange(responder, options);
  const server = createHardenedServer(createOcspRequestListener(exchange, maxRequestBytes), options, (httpStatus) => count(`http_${httpStatus}`, false));
  addFastLane(server, exchange.plain, {
    maxBodyBytes: maxRequestBytes,
    headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  return server;
}
