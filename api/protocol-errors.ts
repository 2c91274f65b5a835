import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../shared/logger.js';

/** What Node's HTTP parser refused, said in the service's error shape. */
function answerFor(err: NodeJS.ErrnoException, maxHeaderSize: number): { status: number; code: string; message: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'headers_too_large', message: `the request line and headers may be at most ${maxHeaderSize} bytes together` };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: 'the request was not received in time' };
    default:
      return { status: 400, code: 'bad_request', message: 'the request is not valid HTTP/1.1' };
  }
}

/**
 * Requests Node's parser refuses never reach Express: by default Node answers them with a bare status line (an empty
 * 431 for a 100 KB URL or a 20 KB header). Here they get the JSON error every other failure gets, then the connection
 * closes (the parser cannot resynchronise).
 */
export function answerProtocolErrors(server: Server, logger: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, code, message } = answerFor(err, maxHeaderSize);
    const id = randomUUID();
    logger.info({ reqId: id, code: err.code, status }, 'request refused by the HTTP parser');
    const body = JSON.stringify({ error: { code, message } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
