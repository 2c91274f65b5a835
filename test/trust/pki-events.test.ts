import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import {
  InProcessPkiEvents,
  PostgresPkiEvents,
  createPkiEvents,
  parsePkiEvent,
  type PkiNotice,
} from '../../shared/pki/pki-events.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/** Collects notices and lets a test await the next one matching a predicate. */
class Inbox {
  readonly notices: PkiNotice[] = [];
  private waiters: Array<{ match: (n: PkiNotice) => boolean; resolve: (n: PkiNotice) => void }> = [];

  readonly listener = (n: PkiNotice) => {
    this.notices.push(n);
    for (const w of this.waiters.filter((w) => w.match(n))) w.resolve(n);
    this.waiters = this.waiters.filter((w) => !w.match(n));
  };

  next(match: (n: PkiNotice) => boolean): Promise<PkiNotice> {
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }
}

describe('trust: PKI events', function () {
  describe('Postgres LISTEN/NOTIFY', function () {
    let db: TestDatabase;
    let senderKnex: Knex;
    let listener: PostgresPkiEvents;
    let sender: PostgresPkiEvents;
    const inbox = new Inbox();

    before(async function () {
      db = await createTestDatabase();
      senderKnex = knexFactory({ client: 'pg', connection: db.url, pool: { min: 0, max: 1 } });
      listener = new PostgresPkiEvents(db.knex, db.url);
      sender = new PostgresPkiEvents(senderKnex, db.url);
      await listener.subscribe(inbox.listener);
    });

    after(async function () {
      await listener?.close();
      await sender?.close();
      await senderKnex?.destroy();
      await db?.drop();
    });

    it('delivers an event published on another connection', async function () {
      const heard = inbox.next((n) => n.kind === 'revoked');
      await sender.publish({ kind: 'revoked', serial: '0abc' });
      expect(await heard).to.deep.equal({ kind: 'revoked', serial: '0abc' });
    });

    it('ignores payloads that are not PKI events', async function () {
      const before = inbox.notices.length;
      const heard = inbox.next((n) => n.kind === 'issued');
      await senderKnex.raw(`select pg_notify('pki_events', 'not json'), pg_notify('pki_events', '{"kind":"revoked","serial":"XYZ"}')`);
      await sender.publish({ kind: 'issued', serial: '01', role: 'leaf' });
      await heard;
      expect(inbox.notices.slice(before)).to.deep.equal([{ kind: 'issued', serial: '01', role: 'leaf' }]);
    });

    it('reconnects after losing its connection, says resync, and hears events again', async function () {
      const resync = inbox.next((n) => n.kind === 'resync');
      const { rows } = await senderKnex.raw(
        `select pg_terminate_backend(pid) as killed from pg_stat_activity where datname = current_database() and query = 'LISTEN pki_events'`,
      );
      expect(rows.map((r: { killed: boolean }) => r.killed)).to.deep.equal([true]);
      await resync;
      const heard = inbox.next((n) => n.kind === 'revoked' && n.serial === '0def');
      await sender.publish({ kind: 'revoked', serial: '0def' });
      await heard;
    });
  });

  describe('in-process', function () {
    it('delivers to every subscriber, survives a throwing one, and unsubscribes', async function () {
      const events = new InProcessPkiEvents();
      const inbox = new Inbox();
      const stopFaulty = await events.subscribe(() => {
        throw new Error('faulty subscriber');
      });
      const stop = await events.subscribe(inbox.listener);
      await events.publish({ kind: 'revoked', serial: '01' });
      stop();
      stopFaulty();
      await events.publish({ kind: 'revoked', serial: '02' });
      expect(inbox.notices).to.deep.equal([{ kind: 'revoked', serial: '01' }]);
    });

    it('createPkiEvents: Postgres with DATABASE_URL, one emitter for the whole process without', function () {
      const knex = knexFactory({ client: 'pg', connection: 'postgres://127.0.0.1:1/none' });
      try {
        expect(createPkiEvents({ databaseUrl: 'postgres://127.0.0.1:1/none' }, knex).kind).to.equal('postgres');
        const a = createPkiEvents({ databaseUrl: undefined }, knex);
        expect(a.kind).to.equal('in-process');
        expect(createPkiEvents({ databaseUrl: undefined }, knex)).to.equal(a);
      } finally {
        void knex.destroy();
      }
    });

    it('parsePkiEvent accepts only well-formed events', function () {
      expect(parsePkiEvent('{"kind":"issued","serial":"0a","role":"sub_ca"}')).to.deep.equal({ kind: 'issued', serial: '0a', role: 'sub_ca' });
      for (const bad of [undefined, '', 'null', '[]', '{"kind":"issued","serial":"0a","role":"boss"}', '{"kind":"revoked","serial":"-01"}', '{"kind":"other","serial":"01"}']) {
        expect(parsePkiEvent(bad), String(bad)).to.equal(undefined);
      }
    });
  });
});
