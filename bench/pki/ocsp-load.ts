/**
 * The OCSP load generator of bench/pki/run.ts, run as its own process (fork) so that it does not share the
 * responder's event loop. A deliberately small HTTP/1.1 client on raw keep-alive sockets: `connections`
 * connections, each sending one POST at a time (no pipelining), `total` requests in all, the request bodies
 * taken in turn from the list it is given (one body: a single hot certificate; 10,000: a different serial
 * on each request, cycling). It costs a few microseconds per request, far less than node:http's client, so
 * the figure is the responder's and not the client's.
 *
 * Every answer is checked: HTTP 200, a complete body, OCSPResponse status successful (0), and the CertID
 * serial of the request present in the response (so a distinct run cannot pass with answers for other
 * certificates). Failures are counted, never retried.
 *
 * Protocol (IPC): the parent sends { port, bodies: base64[], serials: hex[], total, connections };
 * the child answers { elapsedMs, latenciesMs: {p50, p99, max}, errors, firstError? } and waits for the next job.
 */
import { connect, type Socket } from 'node:net';

export interface LoadJob {
  port: number;
  /** DER OCSP requests, base64. */
  bodies: string[];
  /** The serial (hex of its DER INTEGER content) asked in each body. */
  serials: string[];
  total: number;
  connections: number;
}

export interface LoadResult {
  elapsedMs: number;
  requestsPerSecond: number;
  latenciesMs: { p50: number; p99: number; max: number };
  errors: number;
  firstError?: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const OCSP_SUCCESSFUL = Buffer.from([0x0a, 0x01, 0x00]);

function httpRequest(body: Buffer): Buffer {
  const head = `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/ocsp-request\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function runJob(job: LoadJob): Promise<LoadResult> {
  const requests = job.bodies.map((b) => httpRequest(Buffer.from(b, 'base64')));
  // The serial as it appears in the response's CertID: INTEGER tag, length, content.
  const serialTlvs = job.serials.map((hex) => {
    const content = Buffer.from(hex, 'hex');
    return Buffer.concat([Buffer.from([0x02, content.length]), content]);
  });
  const latencies = new Float64Array(job.total);
  let next = 0;
  let done = 0;
  let errors = 0;
  let firstError: string | undefined;
  const fail = (why: string) => {
    errors++;
    firstError ??= why;
  };

  const started = performance.now();
  await Promise.all(
    Array.from({ length: job.connections }, () => new Promise<void>((resolve) => {
      const socket: Socket = connect({ host: '127.0.0.1', port: job.port, noDelay: true });
      let buffered: Buffer = Buffer.alloc(0);
      let current = -1;
      let sentAt = 0;
      let bodyStart = -1;
      let bodyLength = -1;
      let status = 0;
      const sendNext = () => {
        if (next >= job.total) {
          socket.end();
          return;
        }
        current = next++;
        sentAt = performance.now();
        socket.write(requests[current % requests.length]!);
      };
      socket.on('connect', sendNext);
      socket.on('data', (chunk: Buffer) => {
        buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
        for (;;) {
          if (bodyStart < 0) {
            const end = buffered.indexOf(HEADER_END);
            if (end < 0) return;
            const head = buffered.toString('latin1', 0, end);
            status = Number(head.slice(9, 12));
            const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
            bodyStart = end + 4;
            bodyLength = length ? Number(length[1]) : 0;
          }
          if (buffered.length < bodyStart + bodyLength) return;
          const body = buffered.subarray(bodyStart, bodyStart + bodyLength);
          latencies[current] = performance.now() - sentAt;
          done++;
          if (status !== 200) fail(`HTTP ${status}`);
          else if (body.indexOf(OCSP_SUCCESSFUL) < 0 || body.indexOf(OCSP_SUCCESSFUL) > 5) fail('OCSP response status is not successful');
          else if (body.indexOf(serialTlvs[current % serialTlvs.length]!) < 0) fail('response does not carry the requested serial');
          buffered = buffered.subarray(bodyStart + bodyLength);
          bodyStart = -1;
          sendNext();
          if (buffered.length === 0) return;
        }
      });
      socket.on('error', (err) => fail(`socket: ${err.message}`));
      socket.on('close', () => {
        if (current >= 0 && bodyStart >= 0) fail('connection closed mid-response');
        resolve();
      });
    })),
  );
  const elapsedMs = performance.now() - started;
  if (done < job.total) {
    errors += job.total - done;
    firstError ??= `${job.total - done} requests unanswered`;
  }
  const sorted = latencies.subarray(0, done).sort();
  return {
    elapsedMs,
    requestsPerSecond: (done / elapsedMs) * 1000,
    latenciesMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN },
    errors,
    firstError,
  };
}

process.on('message', (job: LoadJob) => {
  runJob(job).then(
    (result) => process.send!(result),
    (err: unknown) => process.send!({ elapsedMs: 0, requestsPerSecond: 0, latenciesMs: { p50: NaN, p99: NaN, max: NaN }, errors: job.total, firstError: String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
