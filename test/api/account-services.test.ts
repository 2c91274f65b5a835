import { expect } from 'chai';
import { insertOrganisation } from '../../shared/db/repositories/organisations.js';
import type { Principal } from '../../api/auth/principal.js';
import { ApiError } from '../../api/errors.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../../api/services/api-keys.js';
import { addOrgUser, changeUserRole, removeOrgUser } from '../../api/services/org-users.js';
import { PasswordPool } from '../../api/auth/password-pool.js';
import { createLogger } from '../../shared/logger.js';
import { InProcessPkiEvents } from '../../shared/pki/pki-events.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { rejection } from '../support/rejection.js';

/** The services called as a test (or another front end) would: no HTTP, on a real database. */
describe('account services without HTTP', () => {
  let db: TestDatabase;
  let adminOfA: Principal;
  let adminId: string;
  let orgB: string;
  const operator = { type: 'operator', command: 'test' } as const;
  const hashing = { passwords: new PasswordPool({ threads: 1, maxChecks: 4 }), bcryptRounds: 4 };
  before(async () => {
    db = await createTestDatabase();
    const a = await insertOrganisation('Org A', db.knex);
    orgB = (await insertOrganisation('Org B', db.knex)).id;
    const admin = await addOrgUser(db.knex, a.id, { email: 'admin@a.example', password: 'a long enough passphrase', role: 'admin' }, hashing, operator);
    adminId = admin.user_id;
    adminOfA = { kind: 'user', userId: adminId, orgId: a.id, role: 'admin', email: admin.email };
  });
  after(async () => {
    await hashing.passwords.close();
    await db.drop();
  });

  it('createApiKey: the key is listed in its organisation only, and only there can it be revoked', async () => {
    const created = await createApiKey(db.knex, adminOfA, 'ci');
    expect(created.key.startsWith(created.prefix)).to.equal(true);
    expect((await listApiKeys(db.knex, adminOfA.orgId)).map((k) => k.key_id)).to.deep.equal([created.key_id]);
    expect(await listApiKeys(db.knex, orgB)).to.deep.equal([]);
    const refused = await rejection(revokeApiKey(db.knex, orgB, created.key_id, operator));
    expect(refused).to.be.instanceOf(ApiError).and.include({ status: 404 });
    await revokeApiKey(db.knex, adminOfA.orgId, created.key_id, operator);
    const [listed] = await listApiKeys(db.knex, adminOfA.orgId);
    expect(listed!.revoked_at).to.be.a('string');
    expect(listed).to.not.have.property('key');
  });

  it('changeUserRole and removeOrgUser: the last admin stays; another organisation cannot reach its users', async () => {
    const demote = await rejection(changeUserRole(db.knex, adminOfA.orgId, adminId, 'signer', operator));
    expect(demote).to.be.instanceOf(ApiError).and.include({ status: 409, code: 'last_admin' });
    const fromB = await rejection(removeOrgUser(db.knex, orgB, adminId, operator, { events: new InProcessPkiEvents(), logger: createLogger('silent', 'test') }));
    expect(fromB).to.be.instanceOf(ApiError).and.include({ status: 404 });
    const signer = await addOrgUser(db.knex, adminOfA.orgId, { email: 'signer@a.example', password: 'another long passphrase', role: 'signer' }, hashing, operator);
    expect(await changeUserRole(db.knex, adminOfA.orgId, signer.user_id, 'admin', operator)).to.include({ role: 'admin', email: 'signer@a.example' });
    expect(await changeUserRole(db.knex, adminOfA.orgId, adminId, 'viewer', operator)).to.include({ role: 'viewer' });
  });
});
