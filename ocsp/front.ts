/**
 * An OCSP front process (node:cluster worker started by ocsp/fronts.ts; see there why): the OCSP HTTP edge
 * (ocsp/server.ts) on the role's shared OCSP socket, answering from its own copies (ocsp/front-cache.ts) and
 * asking the role's process for the rest. It counts its answers and sends the counts to the role's process
 * every second and before it stops.
 */
import cluster from 'node:cluster';
import { createLogger } from '../shared/logger.js';
import { ocspResponses } from '../shared/metrics/metrics.js';
import { FrontCache, type AskedReply } from './front-cache.js';
import { FRONT_SETTINGS_ENV, type FromFront, type FrontSettings, type ToFront } from './fronts.js';
import { listenServer } from './http-server.js';
import { createOcspServer } from './server.js';

const COUNTS_EVERY_MS = 1000;

if (cluster.isPrimary || !process.send) throw new Error('ocsp/front.ts runs as a node:cluster worker of the ocsp role (ocsp/fronts.ts)');
const send = (message: FromFront, done?: () => void) => {
  if (process.connected) process.send!(message, undefined, undefined, done);
  else done?.();
};
const settings = JSON.parse(process.env[FRONT_SETTINGS_ENV] ?? '') as FrontSettings;
const logger = createLogger(settings.logLevel, 'ocsp-front');

// The role's process decides when fronts stop (a terminal's Ctrl-C reaches the whole process group).
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});

let nextId = 0;
const waiting = new Map<number, (asked: AskedReply) => void>();
const ask = (der: Uint8Array) =>
  new Promise<AskedReply>((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    send({ t: 'ask', id, der: new Uint8Array(der) }); // a copy: `der` may be a view of a larger socket buffer
  });
const cache = new FrontCache(ask, { maxEntries: settings.maxEntries, logger });
const server = createOcspServer(cache, { logger });

/** The growth of mss_ocsp_responses_total since the last call. */
const sent = new Map<string, number>();
async function countsSinceLast(): Promise<[string, string, number][]> {
  const counts: [string, string, number][] = [];
  for (const { labels, value } of (await ocspResponses.get()).values) {
    const key = `${labels.status}\n${labels.cache}`;
    const grown = value - (sent.get(key) ?? 0);
    if (grown > 0) counts.push([String(labels.status), String(labels.cache), grown]);
    sent.set(key, value);
  }
  return counts;
}
async function sendCounts(done?: () => void): Promise<void> {
  const counts = await countsSinceLast();
  if (counts.length > 0) send({ t: 'counts', counts }, done);
  else done?.();
}
const counting = setInterval(() => void sendCounts(), COUNTS_EVERY_MS);

function stop(): void {
  clearInterval(counting);
  server.close(() => void sendCounts(() => process.exit(0)));
  server.closeIdleConnections();
}

process.on('message', (message: ToFront) => {
  if (message.t === 'answer') {
    waiting.get(message.id)?.(message.asked);
    waiting.delete(message.id);
  } else if (message.t === 'invalidate') {
    cache.invalidate(message.serial);
  } else if (message.t === 'stop') {
    stop();
  }
});

await listenServer(server, settings.port, settings.host);
