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

/** The request line and the header lines (each ending in CRLF): token names, printable values. */
const HEAD = /^(GET|HEAD|POST) (\/[\x21-\x7e]*) HTTP\/1\.([01])\r\n((?:[!#$%&'*+.^_`|~0-9A-Za-z-]+:[\t\x20-\x7e\x80-\xff]*\r\n)*)$/;
const MAX_HEAD_BYTES = 8 * 1024;
/** The header names read below; a name of another length is skipped without being lower-cased. */
const READ_NAMES = ['content-length', 'if-none-match', 'host', 'connection', 'transfer-encoding', 'expect', 'upgrade'];
const READ_NAME_LENGTHS = new Set(READ_NAMES.map((n) => n.length));

/** `data` as exactly one plain request (see the header comment), or undefined for anything node:http should judge. */
export function parsePlainRequest(data: Buffer, maxBodyBytes: number): PlainRequest | undefined {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0 || headEnd > MAX_HEAD_BYTES) return undefined;
  const head = HEAD.exec(data.toString('latin1', 0, headEnd + 2));
  if (!head) return undefined;
  const method = head[1] as PlainRequest['method'];
  const http11 = head[3] === '1';
  const fields = head[4]!;
  let contentLength: number | undefined;
  let ifNoneMatch: string | undefined;
  let host = false;
  let connection = '';
  for (let at = 0; at < fields.length; ) {
    const colon = fields.indexOf(':', at);
    const end = fields.indexOf('\r\n', colon);
    const nameLength = colon - at;
    const next = end + 2;
    if (!READ_NAME_LENGTHS.has(nameLength)) {
      at = next;
      continue;
    }
    const name = fields.slice(at, colon).toLowerCase();
    const value = fields.slice(colon + 1, end).trim();
    at = next;
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
  const keepAlive = connection === '' ? http11 : keepsAlive(connection, http11);
  return { method, url: head[2]!, ifNoneMatch, body: data.subarray(headEnd + 4), keepAlive };
}

/** Whether Connection tokens (each after a comma) keep the connection. */
function keepsAlive(connection: string, http11: boolean): boolean {
  const tokens = connection.split(',').map((t) => t.trim());
  return http11 ? !tokens.includes('close') : tokens.includes('keep-alive');
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

/** The sink of a request read by the fast lane: the response as node:http would write it, then `lane.kept` on a kept connection. */
class SocketSink implements AnswerSink {
  private sent = false;

  constructor(
    private readonly socket: Socket,
    private readonly request: PlainRequest,
    private readonly lane: { keepAliveSeconds: number; kept(socket: Socket): void },
  ) {}

  get done(): boolean {
    return this.sent || this.socket.destroyed;
  }

  send(status: number, headers: OutgoingHttpHeaders, body?: Uint8Array): void {
    const { socket, request } = this;
    if (this.sent || socket.destroyed) return;
    this.sent = true;
    let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`;
    for (const name in headers) head += `${name}: ${String(headers[name])}\r\n`;
    head += `Date: ${httpDate()}\r\n`;
    head += request.keepAlive ? `Connection: keep-alive\r\nKeep-Alive: timeout=${this.lane.keepAliveSeconds}\r\n\r\n` : 'Connection: close\r\n\r\n';
    const withBody = body !== undefined && request.method !== 'HEAD' && status !== 304;
    const bytes = Buffer.from(head, 'latin1');
    socket.write(withBody ? Buffer.concat([bytes, body]) : bytes);
    if (request.keepAlive) this.lane.kept(socket);
    // The kernel took it all (an answer of a few KiB, usually): closed now, without a shutdown of its own first.
    else if (socket.writableLength === 0) socket.destroy();
    else socket.end(() => socket.destroy());
  }
}

export interface FastLaneOptions {
  maxBodyBytes: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

const ignore = () => {};

/**
 * Puts the fast lane in front of `server`'s own connection handler (so the server still listens, tracks and
 * closes its connections as before). `server.closeIdleConnections()` (called by close()) also drops the
 * connections the lane is still waiting on.
 *
 * Per connection it does as little as it can: listeners shared by every socket, no timer of its own (one sweep
 * finds the connections past the headers timeout, as node:http's connections check does), and Nagle's algorithm left
 * on where it writes one answer and closes (node:http turns it off for the connections handed to it).
 */
export function addFastLane(server: Server, handle: PlainRequestHandler, options: FastLaneOptions): void {
  const [httpConnection] = server.listeners('connection') as ((socket: Socket) => void)[];
  if (!httpConnection) throw new Error('addFastLane: the server has no connection handler');
  server.removeListener('connection', httpConnection);
  (server as Server & { noDelay: boolean }).noDelay = false;
  /** Connections the lane waits on for a first request, with when they time out. */
  const waiting = new Map<Socket, number>();
  const headersTimeoutMs = options.headersTimeoutMs;

  const handOver = (socket: Socket, data?: Buffer) => {
    if (socket.destroyed) return;
    if (data) socket.unshift(data);
    socket.setNoDelay(true);
    httpConnection.call(server, socket);
    socket.resume();
  };
  const lane = { keepAliveSeconds: Math.floor(options.keepAliveTimeoutMs / 1000), kept: (socket: Socket) => handOver(socket) };

  function onFirstData(this: Socket, data: Buffer): void {
    waiting.delete(this);
    this.removeListener('data', onFirstData);
    this.pause();
    const request = parsePlainRequest(data, options.maxBodyBytes);
    if (!request) handOver(this, data);
    else handle(request, new SocketSink(this, request, lane));
  }

  let sweep: NodeJS.Timeout | undefined;
  const sweepTimedOut = () => {
    const now = Date.now();
    for (const [socket, until] of waiting) {
      if (socket.destroyed) waiting.delete(socket);
      else if (now >= until) {
        waiting.delete(socket);
        socket.removeListener('data', onFirstData);
        const err = Object.assign(new Error('request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
        server.emit('clientError', err, socket);
      }
    }
  };

  server.on('connection', (socket: Socket) => {
    if (!sweep) {
      sweep = setInterval(sweepTimedOut, Math.min(1000, Math.max(10, headersTimeoutMs / 4))).unref();
      server.once('close', () => {
        clearInterval(sweep);
        sweep = undefined;
      });
    }
    waiting.set(socket, Date.now() + headersTimeoutMs);
    socket.on('error', ignore); // a reset before the request: nothing to answer
    socket.on('data', onFirstData);
  });

  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    for (const socket of waiting.keys()) socket.destroy();
    waiting.clear();
    closeIdle();
  };
}
