/**
 * The fast lane of the OCSP HTTP edge (ocsp/server.ts). Most OCSP clients open a new connection per request,
 * and there node:http's own work for each connection (its parser, IncomingMessage, ServerResponse, header
 * checks) costs several times what the responder does to answer from memory. This lane reads the first
 * request of a connection itself when it is a plain one, whole in the first bytes that arrived:
 *
 *   GET|HEAD|POST <path> HTTP/1.0|1.1, token header names, printable values, at most one Content-Length,
 *   Host, If-None-Match; no Transfer-Encoding, Expect or Upgrade; a POST body exactly Content-Length long
 *   (at most the body limit), no body on GET; nothing after it.
 *
 * and hands it to the same exchange as node:http (`PlainRequestHandler`), writing the response bytes itself
 * with the headers node:http would send (Date, Connection, Keep-Alive). Anything else, bytes untouched, goes
 * to node:http's own connection handler, which judges it as before (timeouts, 400/408/413/431, chunked
 * bodies, pipelining); so does a connection after a kept-alive answer. A connection that sends nothing within
 * the headers timeout is refused as node:http refuses it (the server's clientError handler: 408).
 */
import { STATUS_CODES, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { Socket } from 'node:net';

export interface PlainRequest {
  method: 'GET' | 'HEAD' | 'POST';
  url: string;
  ifNoneMatch: string | undefined;
  /** The POST body (empty for GET and HEAD). */
  body: Buffer;
  /** The client keeps the connection (HTTP/1.1 without `Connection: close`, HTTP/1.0 with `keep-alive`). */
  keepAlive: boolean;
}

/** Where an exchange writes its one answer (a node:http response, or the fast lane's socket). */
export interface AnswerSink {
  /** The answer was written already or the client is gone. */
  readonly done: boolean;
  send(status: number, headers: OutgoingHttpHeaders, body?: Uint8Array): void;
}

export type PlainRequestHandler = (request: PlainRequest, sink: AnswerSink) => void;

const REQUEST_LINE = /^(GET|HEAD|POST) (\/[\x21-\x7e]*) HTTP\/1\.([01])$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const MAX_HEAD_BYTES = 8 * 1024;

/** `data` as exactly one plain request (see the header comment), or undefined for anything node:http should judge. */
export function parsePlainRequest(data: Buffer, maxBodyBytes: number): PlainRequest | undefined {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0 || headEnd > MAX_HEAD_BYTES) return undefined;
  const lines = data.toString('latin1', 0, headEnd).split('\r\n');
  const start = REQUEST_LINE.exec(lines[0]!);
  if (!start) return undefined;
  const method = start[1] as PlainRequest['method'];
  const http11 = start[3] === '1';
  let contentLength: number | undefined;
  let ifNoneMatch: string | undefined;
  let host = false;
  let connection = '';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (!TOKEN.test(name) || !FIELD_VALUE.test(value)) return undefined;
    switch (name) {
      case 'content-length':
        if (contentLength !== undefined || !/^\d{1,7}$/.test(value)) return undefined;
        contentLength = Number(value);
        break;
      case 'if-none-match':
        if (ifNoneMatch !== undefined) return undefined;
        ifNoneMatch = value;
        break;
      case 'host':
        if (host) return undefined;
        host = true;
        break;
      case 'connection':
        connection += `,${value.toLowerCase()}`;
        break;
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
        return undefined;
    }
  }
  if (http11 && !host) return undefined;
  const bodyBytes = data.length - headEnd - 4;
  if (method === 'POST' ? (contentLength ?? 0) !== bodyBytes || bodyBytes > maxBodyBytes : bodyBytes !== 0 || (contentLength ?? 0) !== 0) return undefined;
  const tokens = connection.split(',').map((t) => t.trim());
  const keepAlive = http11 ? !tokens.includes('close') : tokens.includes('keep-alive');
  return { method, url: start[2]!, ifNoneMatch, body: data.subarray(headEnd + 4), keepAlive };
}

let dateSecond = -1;
let dateText = '';
/** The Date header's value, made once a second (as node:http does). */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/** The sink of a request read by the fast lane: the response as node:http would write it, then `after()`. */
function socketSink(socket: Socket, request: PlainRequest, keepAliveSeconds: number, after: () => void): AnswerSink {
  let sent = false;
  return {
    get done() {
      return sent || socket.destroyed;
    },
    send(status, headers, body) {
      if (sent || socket.destroyed) return;
      sent = true;
      let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`;
      for (const name in headers) head += `${name}: ${String(headers[name])}\r\n`;
      head += `Date: ${httpDate()}\r\n`;
      head += request.keepAlive ? `Connection: keep-alive\r\nKeep-Alive: timeout=${keepAliveSeconds}\r\n\r\n` : 'Connection: close\r\n\r\n';
      const withBody = body !== undefined && request.method !== 'HEAD' && status !== 304;
      const bytes = Buffer.from(head, 'latin1');
      if (!request.keepAlive) {
        socket.end(withBody ? Buffer.concat([bytes, body]) : bytes);
        socket.once('finish', () => socket.destroy());
        return;
      }
      socket.write(withBody ? Buffer.concat([bytes, body]) : bytes);
      after();
    },
  };
}

export interface FastLaneOptions {
  maxBodyBytes: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/**
 * Puts the fast lane in front of `server`'s own connection handler (so the server still listens, tracks and
 * closes its connections as before). `server.closeIdleConnections()` (called by close()) also drops the
 * connections the lane is still waiting on.
 */
export function addFastLane(server: Server, handle: PlainRequestHandler, options: FastLaneOptions): void {
  const [httpConnection] = server.listeners('connection') as ((socket: Socket) => void)[];
  if (!httpConnection) throw new Error('addFastLane: the server has no connection handler');
  server.removeListener('connection', httpConnection);
  const waiting = new Set<Socket>();
  const keepAliveSeconds = Math.floor(options.keepAliveTimeoutMs / 1000);

  const handOver = (socket: Socket, data?: Buffer) => {
    if (socket.destroyed) return;
    if (data) socket.unshift(data);
    httpConnection.call(server, socket);
    socket.resume();
  };

  server.on('connection', (socket: Socket) => {
    waiting.add(socket);
    const onData = (data: Buffer) => {
      stopWaiting();
      socket.pause();
      const request = parsePlainRequest(data, options.maxBodyBytes);
      if (!request) {
        handOver(socket, data);
        return;
      }
      handle(request, socketSink(socket, request, keepAliveSeconds, () => handOver(socket)));
    };
    const onTimeout = () => {
      stopWaiting();
      const err = Object.assign(new Error('request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
      server.emit('clientError', err, socket);
    };
    const stopWaiting = () => {
      waiting.delete(socket);
      socket.removeListener('data', onData);
      socket.removeListener('close', stopWaiting);
      socket.setTimeout(0, onTimeout);
    };
    socket.on('error', () => {}); // a reset before the request: nothing to answer
    socket.on('close', stopWaiting);
    socket.setTimeout(options.headersTimeoutMs, onTimeout);
    socket.on('data', onData);
  });

  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    for (const socket of waiting) socket.destroy();
    closeIdle();
  };
}
