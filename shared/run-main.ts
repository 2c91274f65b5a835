import type { Knex } from 'knex';
import { ConfigError, loadConfig, startupWarnings, type Config } from './config.js';
import { recordStartup } from './audit/startup.js';
import { openDatabase } from './db/index.js';
import { collectGarbageWhenIdle } from './idle-collector.js';
import { createLogger, type Logger } from './logger.js';

/** How long a process may take to shut down after SIGTERM before it exits anyway. */
const SHUTDOWN_GRACE_MS = 25_000;

/**
 * Entry point shared by every process role: validated configuration, a logger, and an orderly
 * shutdown on SIGTERM/SIGINT. A bad configuration is one clear line on stderr and exit code 2.
 */
export function runMain(role: string, start: (config: Config, logger: Logger) => Promise<() => Promise<void>>): void {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel, role);
  for (const { variable, message } of startupWarnings(config)) logger.warn({ variable }, message);
  start(config, logger).then(
    (stop) => {
      collectGarbageWhenIdle();
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down');
        setTimeout(() => {
          logger.error('shutdown took too long; exiting');
          process.exit(1);
        }, SHUTDOWN_GRACE_MS).unref();
        stop().then(
          () => process.exit(0),
          (err: unknown) => {
            logger.error({ err }, 'error during shutdown');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
    },
    (err: unknown) => {
      logger.fatal({ err }, `${role} failed to start`);
      process.exit(1);
    },
  );
}

/**
 * A role run as its own process (Procfile): Postgres is required, since PGlite cannot be shared between
 * processes; the database is opened (and migrated) before `start` and closed after its stop function.
 */
export function runRoleProcess(
  role: string,
  start: (config: Config, knex: Knex, logger: Logger) => Promise<() => Promise<void>>,
): void {
  runMain(role, async (config, logger) => {
    if (!config.databaseUrl) {
      throw new Error(`a separate ${role} process needs DATABASE_URL (Postgres); the embedded database is only for \`npm start\``);
    }
    const knex = await openDatabase(config);
    try {
      const stop = await start(config, knex, logger);
      await recordStartup(knex, [role], config);
      return async () => {
        await stop();
        await knex.destroy();
      };
    } catch (err) {
      await knex.destroy();
      throw err;
    }
  });
}
