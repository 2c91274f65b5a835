/**
 * OCSP_PROCESSES front processes for the OCSP port, started by the ocsp role (ocsp/role.ts). With a new
 * connection per request (most OCSP clients), a responder's throughput is mostly TCP and HTTP set-up, which
 * one event loop does on one core; fronts spread it over the cores, away from whatever else the role's process
 * runs (`npm start`: every role). Each front (ocsp/front.ts) is node:cluster worker that answers on the shared
 * listening socket itself (scheduling policy SCHED_NONE: the kernel hands out the connections, so this process
 * never touches one), from its own copies of signed responses (ocsp/front-cache.ts). What it cannot answer
 * alone (a miss, a nonce) it asks this process, whose responder (database, vault, nonce budget) answers as
 * before; revocations and reloads are passed on to every front. A front counts its answers in
 * mss_ocsp_responses_total and sends them here every second, so the metrics stay in this process's registry.
 *
 * A front ignores SIGINT and SIGTERM (a terminal's Ctrl-C reaches the whole process group) and stops when this
 * process tells it to or goes away; a front that dies otherwise is replaced after a second.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { ocspResponses } from '../shared/metrics/metrics.js';
import { childModule } from '../shared/paths.js';
import { failureAnswer } from './answers.js';
import type { AskedReply } from './front-cache.js';
import type { RateSnapshot } from './limits.js';
import type { OcspAnswerer } from './server.js';
import type { OcspAnswer } from './source.js';

/** What a front is started with (environment variable MSS_OCSP_FRONT, JSON). */
export interface FrontSettings {
  port: number;
  host: string;
  logLevel: string;
  /** Signed responses a front keeps. */
  maxEntries: number;
}

export type ToFront = { t: 'answer'; id: number; asked: AskedReply } | { t: 'invalidate'; serial?: string } | { t: 'stop' };
export type FromFront = { t: 'ask'; id: number; der: Uint8Array } | { t: 'counts'; counts: [status: string, cache: string, n: number][] };

export const FRONT_SETTINGS_ENV = 'MSS_OCSP_FRONT';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
const RESPAWN_DELAY_MS = 1000;

export interface OcspFronts {
  /** The port the fronts answer on (the configured one, or the one picked for 0). */
  port: number;
  /** Drops the fronts' copies for a serial, or all of them. */
  invalidate(serialHex?: string): void;
  close(): Promise<void>;
}

export interface OcspFrontsOptions {
  processes: number;
  port: number;
  host: string;
  logLevel: string;
  maxEntries: number;
  /** This process's answers (never rejects). */
  answerer: OcspAnswerer;
  /** Until when a front may serve its copy of `answer` (0: not at all). */
  freshUntil: (answer: OcspAnswer) => number;
  /** The nonce rate's token bucket now (OcspResponder.nonceBudget). */
  nonceBudget: () => RateSnapshot;
  logger: Logger;
}

export async function startOcspFronts(options: OcspFrontsOptions): Promise<OcspFronts> {
  const { logger } = options;
  // Frozen by the first setupPrimary: set before it. The kernel spreads connections; no accept() here.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  // The fronts keep V8's default young generation whatever this process was given (npm start's
  // --max-semi-space-size=2, for its memory at rest): they allocate per request, and answer at OCSP's rate.
  const front = childModule(import.meta.url, 'front', process.execArgv.filter((a) => !a.startsWith('--max-semi-space-size')));
  cluster.setupPrimary({ exec: front.modulePath, execArgv: front.execArgv, serialization: 'advanced' });

  const workers = new Set<Worker>();
  const respawns = new Set<NodeJS.Timeout>();
  let stopping = false;
  let boundPort = options.port;

  const onMessage = (worker: Worker, message: FromFront) => {
    if (message.t === 'counts') {
      for (const [status, cache, n] of message.counts) ocspResponses.inc({ status, cache }, n);
      return;
    }
    options.answerer
      .serve(message.der)
      .catch((err: unknown) => ({ answer: failureAnswer(err, logger), hit: false }))
      .then((reply) => {
        const asked = { reply, freshUntil: options.freshUntil(reply.answer), nonceBudget: options.nonceBudget() };
        const answer: ToFront = { t: 'answer', id: message.id, asked };
        if (worker.isConnected()) worker.send(answer);
      });
  };

  const fork = (): Promise<void> => {
    // Every front asks for the configured port (0 included): node:cluster then hands them all the same socket.
    const settings: FrontSettings = { port: options.port, host: options.host, logLevel: options.logLevel, maxEntries: options.maxEntries };
    const worker = cluster.fork({ [FRONT_SETTINGS_ENV]: JSON.stringify(settings) });
    workers.add(worker);
    worker.on('message', (message: FromFront) => onMessage(worker, message));
    worker.on('error', (err) => logger.warn({ err }, 'OCSP front channel error'));
    return new Promise<void>((resolve, reject) => {
      let listening = false;
      const timer = setTimeout(() => {
        worker.process.kill('SIGKILL');
        reject(new Error(`an OCSP front did not listen within ${START_TIMEOUT_MS} ms`));
      }, START_TIMEOUT_MS);
      worker.once('listening', (address: { port: number }) => {
        listening = true;
        clearTimeout(timer);
        boundPort = address.port;
        resolve();
      });
      worker.once('exit', (code, signal) => {
        workers.delete(worker);
        clearTimeout(timer);
        if (!listening) {
          reject(new Error(`an OCSP front exited before listening (code ${code}, signal ${signal})`));
          return;
        }
        if (stopping) return;
        logger.error({ code, signal, pid: worker.process.pid }, 'an OCSP front exited; starting another');
        const respawn = setTimeout(() => {
          respawns.delete(respawn);
          if (!stopping) fork().catch((err: unknown) => logger.error({ err }, 'could not restart an OCSP front'));
        }, RESPAWN_DELAY_MS);
        respawns.add(respawn);
      });
    });
  };

  const broadcast = (message: ToFront) => {
    for (const worker of workers) if (worker.isConnected()) worker.send(message);
  };

  const close = async () => {
    stopping = true;
    for (const timer of respawns) clearTimeout(timer);
    await Promise.all(
      [...workers].map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.process.exitCode !== null || worker.process.signalCode !== null) {
              resolve();
              return;
            }
            const timer = setTimeout(() => worker.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
            worker.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            if (worker.isConnected()) worker.send({ t: 'stop' } satisfies ToFront);
            else worker.process.kill('SIGKILL');
          }),
      ),
    );
  };

  // The first front binds the port (0 picks one); the others share its socket.
  try {
    await fork();
    await Promise.all(Array.from({ length: options.processes - 1 }, fork));
  } catch (err) {
    await close();
    throw err;
  }
  logger.info({ processes: options.processes, port: boundPort }, 'OCSP front processes listening');
  return { port: boundPort, invalidate: (serialHex) => broadcast({ t: 'invalidate', serial: serialHex }), close };
}
