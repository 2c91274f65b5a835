/**
 * PKI change notifications between processes: "certificate X was revoked" (OCSP responders drop their cached
 * answer for it at once) and "certificate X was issued" (responders reload the CAs they answer for).
 *
 * One interface, two drivers, chosen like the database:
 * - DATABASE_URL set: Postgres LISTEN/NOTIFY. Publishing is one `pg_notify` on the ordinary pool; listening
 *   uses one dedicated `pg` client (a pooled connection would be handed back and stop listening). When that
 *   connection drops it reconnects with back-off and then tells subscribers `resync`: notifications sent
 *   meanwhile are lost, so they must reload what they cache.
 * - no DATABASE_URL (embedded PGlite, every role in one process): an EventEmitter shared by the process.
 */
import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { CERTIFICATE_ROLES, type CertificateRole } from '../db/repositories/certificates.js';

export type PkiEvent =
  | { kind: 'revoked'; serial: string }
  | { kind: 'issued'; serial: string; role: CertificateRole };

/** What subscribers receive: an event, or `resync` when events may have been missed. */
export type PkiNotice = PkiEvent | { kind: 'resync' };

export type PkiListener = (notice: PkiNotice) => void;

export interface PkiEvents {
  readonly kind: 'postgres' | 'in-process';
  /** Delivers `event` to every subscriber in every process (including this one). */
  publish(event: PkiEvent): Promise<void>;
  /** Resolves once listening is live, with a function that unsubscribes. */
  subscribe(listener: PkiListener): Promise<() => void>;
  /** Stops listening (the shared in-process driver stays usable for the process's other roles). */
  close(): Promise<void>;
}

type EventLogger = Pick<Logger, 'warn' | 'error'>;

const CHANNEL = 'pki_events';
const MIN_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

/** Parses a notification payload; anything that is not a PkiEvent is dropped. */
export function parsePkiEvent(payload: string | undefined): PkiEvent | undefined {
  if (!payload) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.serial !== 'string' || !/^[0-9a-f]{1,40}$/.test(v.serial)) return undefined;
  if (v.kind === 'revoked') return { kind: 'revoked', serial: v.serial };
  if (v.kind === 'issued' && (CERTIFICATE_ROLES as readonly unknown[]).includes(v.role)) {
    return { kind: 'issued', serial: v.serial, role: v.role as CertificateRole };
  }
  return undefined;
}

function deliver(listeners: Iterable<PkiListener>, notice: PkiNotice, logger: EventLogger | undefined): void {
  for (const listener of listeners) {
    try {
      listener(notice);
    } catch (err) {
      // One faulty subscriber must not keep the others (or the publisher) from hearing about a revocation.
      logger?.error({ err, notice }, 'PKI event listener failed');
    }
  }
}

export class PostgresPkiEvents implements PkiEvents {
  readonly kind = 'postgres';
  private readonly listeners = new Set<PkiListener>();
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = MIN_RETRY_MS;
  private closed = false;

  constructor(
    private readonly knex: Knex,
    private readonly databaseUrl: string,
    private readonly logger?: EventLogger,
  ) {}

  async publish(event: PkiEvent): Promise<void> {
    await this.knex.raw('select pg_notify(?, ?)', [CHANNEL, JSON.stringify(event)]);
  }

  async subscribe(listener: PkiListener): Promise<() => void> {
    if (this.closed) throw new Error('PKI events: closed');
    this.listeners.add(listener);
    try {
      await this.listen();
    } catch (err) {
      this.listeners.delete(listener);
      throw err;
    }
    return () => {
      this.listeners.delete(listener);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.listeners.clear();
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private listen(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL) return;
      const event = parsePkiEvent(msg.payload);
      if (event) deliver([...this.listeners], event, this.logger);
      else this.logger?.warn({ payload: msg.payload }, 'ignored a malformed PKI event');
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = MIN_RETRY_MS;
  }

  private lost(client: pg.Client, err?: Error): void {
    if (this.client !== client) return; // a connection that never went live, or one already replaced
    this.client = undefined;
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.logger?.warn({ err }, 'PKI event listener lost its database connection; reconnecting');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.listen().then(
        () => deliver([...this.listeners], { kind: 'resync' }, this.logger),
        (err: unknown) => {
          this.logger?.warn({ err, retryMs: this.retryMs }, 'PKI event listener could not reconnect; retrying');
          this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
          if (!this.closed) this.scheduleReconnect();
        },
      );
    }, this.retryMs);
    this.retryTimer.unref();
  }
}

export class InProcessPkiEvents implements PkiEvents {
  readonly kind = 'in-process';
  private readonly emitter = new EventEmitter();

  constructor(private readonly logger?: EventLogger) {
    this.emitter.setMaxListeners(0);
  }

  async publish(event: PkiEvent): Promise<void> {
    this.emitter.emit('event', event);
  }

  async subscribe(listener: PkiListener): Promise<() => void> {
    const wrapped = (notice: PkiNotice) => deliver([listener], notice, this.logger);
    this.emitter.on('event', wrapped);
    return () => {
      this.emitter.off('event', wrapped);
    };
  }

  async close(): Promise<void> {}
}

/** The one emitter of this process: every role started in it (embedded `npm start`) hears the others. */
const processEvents = new InProcessPkiEvents();

/** Postgres LISTEN/NOTIFY when DATABASE_URL is set; the process-wide emitter otherwise. */
export function createPkiEvents(config: Pick<Config, 'databaseUrl'>, knex: Knex, logger?: EventLogger): PkiEvents {
  return config.databaseUrl ? new PostgresPkiEvents(knex, config.databaseUrl, logger) : processEvents;
}
