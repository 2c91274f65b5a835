/**
 * Recording audit events: indexes without gaps under concurrent writers (rolled-back ones give theirs back), leaf
 * hashes that an outsider recomputes from the event as listed, and tables that refuse UPDATE, DELETE and TRUNCATE.
 * On Postgres and on PGlite (`npm start`'s database).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { canonicalJson } from '../../shared/audit/canonical.js';
import { recordAuditEvent } from '../../shared/audit/record.js';
import { auditEventView, recomputedLeafHash } from '../../shared/audit/view.js';
import { auditEventsInRange, auditLogSize } from '../../shared/db/repositories/audit-events.js';
import { createPgliteTestDatabase, createTestDatabase, type TestDatabase } from '../support/database.js';
import { rejection } from '../support/rejection.js';

describe('audit events: canonical JSON (RFC 8785)', () => {
  it('orders keys by UTF-16 code units and writes numbers as ECMAScript does', () => {
    // RFC 8785 §3.2.3's sorting example (read off the text: JSON.parse would put the key "1" first), and its number samples.
    const sorted = canonicalJson({ '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' });
    expect([...sorted.matchAll(/:"([^"]+)"/g)].map((m) => m[1])).to.deep.equal(['Carriage Return', 'One', 'Control', 'Latin Small Letter O With Diaeresis', 'Euro Sign', 'Emoji: Grinning Face', 'Hebrew Letter Dalet With Dagesh']);
    expect(canonicalJson({ numbers: [333333333.33333329, 1e30, 4.5, 0.002, 1e-27, -0] , b: [true, null, 'x\u2028"'] })).to.equal('{"b":[true,null,"x\u2028\\""],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27,0]}');
  });
});

for (const [driver, open] of [['Postgres', createTestDatabase], ['PGlite', createPgliteTestDatabase]] as const) {
  describe(`audit events on ${driver}`, function () {
    this.timeout(60_000);
    let db: TestDatabase;
    before(async () => {
      db = await open();
    });
    after(async () => db?.drop());

    it('gives concurrent writers consecutive leaf indexes, and a rolled-back writer gives its index back', async () => {
      const writers = Array.from({ length: 24 }, (_, i) =>
        db.knex
          .transaction(async (trx) => {
            await recordAuditEvent(trx, { action: 'api_key.created', actor: { type: 'user', id: `u${i}` }, orgId: null, target: { type: 'api_key', id: `k${i}` }, details: { n: i } });
            if (i % 5 === 0) throw new Error('rolled back');
          })
          .then(() => true, () => false),
      );
      const committed = (await Promise.all(writers)).filter(Boolean).length;
      expect(await auditLogSize(db.knex)).to.equal(committed);
      const rows = await auditEventsInRange(0, 1000, db.knex);
      expect(rows.map((r) => r.leaf_index)).to.deep.equal(Array.from({ length: committed }, (_, i) => i));
      expect(rows.map((r) => (r.actor as { id: string }).id)).to.not.include.members(['u0', 'u5', 'u10']);
    });

    it('hashes each event as SHA-256(0x00 || RFC 8785 JSON of the listed event without leaf_index and leaf_hash)', async () => {
      const recorded = await recordAuditEvent(db.knex, {
        action: 'sign.signed',
        actor: { type: 'api_key', id: 'k1' },
        orgId: '6c0e3e0c-8a5e-4d54-9f0e-3f7c0e2b9a11',
        target: { type: 'sign_job', id: 'j1' },
        details: { file_sha256: 'ab'.repeat(32), certificate_serial: '0a1b', omitted: undefined, when: new Date(0) },
      });
      const [row] = await auditEventsInRange(recorded.leaf_index, recorded.leaf_index + 1, db.knex);
      const view = auditEventView(row!);
      expect(view.details).to.deep.equal({ file_sha256: 'ab'.repeat(32), certificate_serial: '0a1b', when: '1970-01-01T00:00:00.000Z' });
      const { leaf_index: _i, leaf_hash: _h, ...hashed } = view;
      const outside = createHash('sha256').update(Buffer.of(0)).update(canonicalJson(hashed)).digest('base64');
      expect(view.leaf_hash).to.equal(outside).and.to.equal(recorded.leaf_hash).and.to.equal(recomputedLeafHash(row!));
    });

    it('refuses UPDATE, DELETE and TRUNCATE of events and checkpoints', async () => {
      for (const statement of ["UPDATE audit_events SET action = 'user.deleted'", 'DELETE FROM audit_events', 'TRUNCATE audit_events', 'TRUNCATE audit_checkpoints']) {
        const err = await rejection(db.knex.raw(statement));
        expect(err.message, statement).to.match(/append-only/);
      }
      expect(await auditLogSize(db.knex)).to.be.greaterThan(0);
    });
  });
}
