/**
 * HTTP front of the service's RFC 3161 time-stamp authority ({tsa_url}), RFC 3161 section 3.4:
 *
 *   POST /<any path>   body: DER TimeStampReq (application/timestamp-query; any Content-Type accepted),
 *                      at most maxRequestBytes (4 KiB; a real request is under 200 bytes)
 *                      -> 200 application/timestamp-reply (DER TimeStampResp, granted or rejection)
 *   GET  /health       {"status":"ok"}
 *
 * Protocol-level refusals (malformed request, unaccepted hash or policy, no certificate, vault down, busy) are
 * HTTP 200 with an RFC 3161 rejection, which is what TSA clients read (`openssl ts -reply -in`, c2pa-rs's own
 * client, our workers). A body over the limit is HTTP 413 carrying a badDataFormat rejection; other methods
 * 405; HTTP-level garbage 400 and slow clients 408 from the clientError handler. Replies are never cached
 * (each token is unique), hence Cache-Control: no-store.
 *
 * Timeouts well under a 10 s proxy read timeout: headers 5 s, whole request 5 s, an answer not ready after 8 s
 * (a vault that hangs) is a systemFailure rejection. Plain node:http, like the OCSP responder.
 *
 * Metrics: every answer written counts once in mss_tsa_responses_total{outcome: granted | rejected, fail_info}
 * here, where answers are sent, so rejections made by the server itself (413, timeout) count too; an answer the
 * authority finishes after its timeout rejection was sent, or for a client already gone, is not counted.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { tsaTokens } from '../shared/metrics/metrics.js';
import { answerWithin, createHardenedServer, HEALTH_BODY, readBoundedBody, sendJsonError, type ServerTimeouts } from './http-server.js';
import { rejection, type TsaAnswer } from '../shared/tsa/authority.js';
import { TIMESTAMP_REPLY_TYPE } from '../shared/tsa/protocol.js';

export interface TsaServerOptions extends ServerTimeouts {
  /** Largest request body accepted. Default 4096. */
  maxRequestBytes?: number;
  /** An answer not ready after this long is sent as a systemFailure rejection. Default 8000. */
  answerTimeoutMs?: number;
  logger?: Pick<Logger, 'warn' | 'error'>;
}

/** What the server needs of the TSA core (TimeStampAuthority satisfies it). */
export interface TsaAnswerSource {
  respond(requestDer: Uint8Array): Promise<TsaAnswer>;
}


export function createTsaRequestListener(tsa: TsaAnswerSource, options: TsaServerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const maxRequestBytes = options.maxRequestBytes ?? 4096;
  const answerTimeoutMs = options.answerTimeoutMs ?? 8000;
  const logger = options.logger;

  function send(res: ServerResponse, answer: TsaAnswer, httpStatus = 200): void {
    if (res.headersSent || res.destroyed) return;
    tsaTokens.inc({ outcome: answer.granted ? 'granted' : 'rejected', fail_info: answer.failInfo ?? '' });
    res.writeHead(httpStatus, { 'Content-Type': TIMESTAMP_REPLY_TYPE, 'Content-Length': answer.der.length, 'Cache-Control': 'no-store' });
    res.end(answer.der);
  }

  function answer(res: ServerResponse, der: Uint8Array): void {
    answerWithin(tsa.respond(der), answerTimeoutMs, {
      onTimeout: () => rejection('systemFailure', 'the TSA did not answer in time; retry'),
      // respond() never rejects; a last line of defence.
      onError: (err) => {
        logger?.error({ err }, 'TSA rejected');
        return rejection('systemFailure', 'internal error');
      },
      deliver: (a) => send(res, a),
    });
  }

  return (req, res) => {
    req.on('error', () => {});
    res.on('error', () => {});
    const url = req.url ?? '/';
    if (req.method === 'POST') {
      readBoundedBody(req, maxRequestBytes, (der) => answer(res, der), () => {
        res.setHeader('Connection', 'close');
        send(res, rejection('badDataFormat', `request larger than ${maxRequestBytes} bytes`), 413);
      });
      return;
    }
    req.resume();
    if ((req.method === 'GET' || req.method === 'HEAD') && (url === '/health' || url.startsWith('/health?'))) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': HEALTH_BODY.length, 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : HEALTH_BODY);
      return;
    }
    sendJsonError(res, 405, 'method_not_allowed', 'POST a DER RFC 3161 TimeStampReq (application/timestamp-query)', { Allow: 'POST' });
  };
}

/** An http.Server answering RFC 3161 requests through `tsa`, with the timeouts above. Not yet listening. */
export function createTsaServer(tsa: TsaAnswerSource, options: TsaServerOptions = {}): Server {
  return createHardenedServer(createTsaRequestListener(tsa, options), options);
}
