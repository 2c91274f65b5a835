import net from 'node:net';

/** How a raw request is sent: all of it, or `sendBytes` of it and then the socket ends or stalls and is dropped. */
export type Transport =
  | { kind: 'full' }
  /** Sends `sendBytes` bytes, then half-closes (FIN): the server sees the body end early. */
  | { kind: 'end'; sendBytes: number }
  /** Sends `sendBytes` bytes, waits `stallMs`, then destroys the socket (RST): a client that vanishes mid-upload. */
  | { kind: 'stall'; sendBytes: number; stallMs: number };

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface RawOutcome {
  /** The final (non-1xx) response, when one arrived. */
  response?: RawResponse;
  /** Bytes that came back but do not parse as an HTTP/1.1 response. */
  garbage?: Buffer;
  /** The connection could not be made (the server is gone). */
  refused?: boolean;
  /** No complete response within the time allowed. */
  timedOut?: boolean;
}

/**
 * Sends `bytes` over a fresh TCP connection to 127.0.0.1:`port` exactly as given (no header validation, no framing),
 * so that a request can be malformed, truncated or abandoned in ways an HTTP client library refuses to produce.
 * The request should carry `Connection: close`; the response is read until the server closes or `timeoutMs` passes.
 */
export function sendRaw(port: number, bytes: Buffer, transport: Transport, timeoutMs: number): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    let done = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (extra: Partial<RawOutcome> = {}) => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      socket.destroy();
      const received = Buffer.concat(chunks);
      if (received.length === 0) return resolve(extra);
      const response = parseResponse(received);
      if (response) return resolve({ ...extra, response });
      // Only an interim answer (100 Continue) before the connection ended: no final answer.
      if (/^HTTP\/1\.[01] 1\d\d /.test(received.toString('latin1', 0, 16))) return resolve(extra);
      resolve({ ...extra, garbage: received });
    };
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      // A complete response ends the wait even if the server keeps the socket open.
      if (parseResponse(Buffer.concat(chunks), true)) finish();
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') return finish({ refused: true });
      finish();
    });
    socket.on('connect', () => {
      if (transport.kind === 'full') {
        socket.write(bytes);
      } else {
        socket.write(bytes.subarray(0, transport.sendBytes));
        if (transport.kind === 'end') socket.end();
        else timers.push(setTimeout(() => finish(), transport.stallMs));
      }
    });
    timers.push(setTimeout(() => finish({ timedOut: true }), timeoutMs));
  });
}

/**
 * Parses an HTTP/1.1 response, skipping interim 1xx responses. With `complete`, only a response whose body has fully
 * arrived (by Content-Length or the chunked terminator) counts; otherwise whatever body arrived is taken.
 */
export function parseResponse(data: Buffer, complete = false): RawResponse | undefined {
  let rest = data;
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) return undefined;
    const lines = rest.subarray(0, headEnd).toString('latin1').split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
    if (!m) return undefined;
    const status = Number(m[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    const after = rest.subarray(headEnd + 4);
    if (status >= 100 && status < 200) {
      rest = after;
      continue;
    }
    if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
      const body = dechunk(after);
      if (!body && complete) return undefined;
      return { status, headers, body: body ?? after };
    }
    const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
    if (length !== undefined) {
      if (complete && after.length < length) return undefined;
      return { status, headers, body: after.subarray(0, length) };
    }
    // Neither framing: the body runs to the end of the connection.
    if (complete) return undefined;
    return { status, headers, body: after };
  }
}

function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    at = start + size + 2;
  }
}
