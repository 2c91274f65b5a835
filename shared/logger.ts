import { pino, type DestinationStream, type Logger, type LoggerOptions as PinoOptions } from 'pino';
import pretty from 'pino-pretty';

/**
 * Paths never written to logs, whatever a caller passes: credentials travel in these headers and fields.
 * pino-http logs headers of every request, so the header paths matter most.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.refresh_token',
  '*.access_token',
  '*.key',
  '*.jwtSecret',
  '*.chainPrivateKey',
  '*.connectionString',
];

export interface CreateLoggerOptions {
  /** Defaults to process.env.NODE_ENV; "production" always logs JSON. */
  nodeEnv?: string;
  /** Whether the output is a terminal; defaults to process.stdout.isTTY. */
  isTTY?: boolean;
  /** Where lines go (tests capture them); defaults to stdout. */
  destination?: DestinationStream | NodeJS.WritableStream;
}

export type LogMode = 'pretty' | 'json';

/** Pretty, human-readable lines for a person at a terminal; JSON for production and anything piped or collected. */
export function logMode(options: Pick<CreateLoggerOptions, 'nodeEnv' | 'isTTY'> = {}): LogMode {
  const nodeEnv = options.nodeEnv ?? process.env.NODE_ENV;
  const isTTY = options.isTTY ?? process.stdout.isTTY === true;
  return isTTY && nodeEnv !== 'production' ? 'pretty' : 'json';
}

/**
 * Binary values (Buffer, Uint8Array, any typed array) at the top level of a log object are written as their
 * length, never their contents: JSON.stringify turns a Uint8Array into {"0":48,"1":130,...}. Runs for every
 * line, so it only looks at top-level values and copies the object only when it has something to replace.
 */
export function summariseBinaryFields(obj: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in obj) {
    const value = obj[key];
    if (ArrayBuffer.isView(value)) {
      out ??= { ...obj };
      out[key] = { bytes: value.byteLength };
    }
  }
  return out ?? obj;
}

export function createLogger(level: string, name: string, options: CreateLoggerOptions = {}): Logger {
  const pinoOptions: PinoOptions = {
    name,
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    formatters: { log: summariseBinaryFields },
  };
  if (logMode(options) === 'pretty') {
    // A stream in this thread (no worker transport): lines are written synchronously, so none are lost on exit.
    const stream = pretty({
      sync: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      ...(options.destination ? { destination: options.destination } : {}),
    });
    return pino(pinoOptions, stream);
  }
  // Synchronous, as Node's own stdout is for files and pipes: lines leave in order and none is lost on exit. pino's
  // default writes asynchronously, and a start failure's fatal line, written synchronously at exit, overtook the
  // warning logged before it.
  return pino(pinoOptions, options.destination ?? pino.destination({ dest: 1, sync: true }));
}

export type { Logger };
