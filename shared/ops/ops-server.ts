import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { once } from 'node:events';
import express from 'express';
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { collectProcessMetrics, renderMetrics } from '../metrics/registry.js';

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

function jsonError(res: express.Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

/**
 * The operator listener (OPS_PORT on OPS_HOST, loopback by default): `/health` (this process is up: every role's
 * liveness probe, the worker and the scheduler having no other listener), `/metrics` (Prometheus text of this
 * process and its sandboxes) and, where the process has the BullMQ sign queue, `/queues` (Bull Board: every
 * organisation's jobs, with retry and clean). Never part of the public API and never behind its authentication: reach it from the
 * host, a private network or a scraper only.
 */
export async function startOpsServer(config: Pick<Config, 'opsPort' | 'opsHost'>, logger: Logger, options: { queue?: Queue } = {}): Promise<OpsServer> {
  collectProcessMetrics();
  const app = express();
  app.disable('x-powered-by');
  app.get('/health', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok' });
  });
  app.get('/metrics', async (_req, res) => {
    try {
      const { contentType, body } = await renderMetrics();
      res.setHeader('Content-Type', contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.send(body);
    } catch (err) {
      logger.error({ err }, 'metrics could not be rendered');
      jsonError(res, 500, 'internal_error', 'metrics could not be rendered');
    }
  });
  if (options.queue) {
    app.use('/queues', bullBoard(options.queue, logger));
  } else {
    app.use('/queues', (_req, res) => jsonError(res, 404, 'not_found', 'this process has no BullMQ queue (the in-process queue, or a role without one)'));
  }
  app.get('/', (_req, res) => res.json({ health: '/health', metrics: '/metrics', queues: options.queue ? '/queues' : null }));
  app.use((req, res) => jsonError(res, 404, 'not_found', `no route for ${req.method} ${req.path}`));
  const server: Server = app.listen(config.opsPort, config.opsHost);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  logger.info({ host: config.opsHost, port }, 'operator listener (metrics, queue view) ready');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Bull Board, loaded at its first request: its modules and views are about 15 MB of a role's memory that most
 * processes, never looked at, would carry for nothing.
 */
function bullBoard(queue: Queue, logger: Logger): express.RequestHandler {
  let router: Promise<express.Router> | undefined;
  const load = async (): Promise<express.Router> => {
    const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
      import('@bull-board/api'),
      import('@bull-board/api/bullMQAdapter'),
      import('@bull-board/express'),
    ]);
    const board = new ExpressAdapter();
    board.setBasePath('/queues');
    createBullBoard({ queues: [new BullMQAdapter(queue)], serverAdapter: board });
    return board.getRouter() as express.Router;
  };
  return (req, res, next) => {
    router ??= load().catch((err: unknown) => {
      router = undefined;
      throw err;
    });
    router.then(
      (r) => r(req, res, next),
      (err: unknown) => {
        logger.error({ err }, 'the queue view could not be loaded');
        jsonError(res, 500, 'internal_error', 'the queue view could not be loaded');
      },
    );
  };
}
