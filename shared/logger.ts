import { pino, type Logger } from 'pino';

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
];

export function createLogger(level: string, name: string): Logger {
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

export type { Logger };
