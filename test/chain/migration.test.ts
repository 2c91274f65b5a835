/** Migration 004: rolls back to the old job states and, going up again, puts every signed file in the pending batch. */
import { expect } from 'chai';
import * as anchoring from '../../migrations/004_anchoring.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { seedSignedFiles } from './support.js';

describe('chain: migration 004_anchoring', function () {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db?.drop());

  it('down keeps jobs valid (anchored -> signed); up backfills files signed before anchoring existed', async () => {
    const files = await seedSignedFiles(db.knex, 3);
    await db.knex('sign_jobs').where({ id: files[0]!.jobId }).update({ status: 'anchored' });
    await anchoring.down(db.knex);
    expect(await db.knex.schema.hasTable('anchor_leaves')).to.equal(false);
    expect((await db.knex('sign_jobs').select('status')).map((r) => r.status)).to.deep.equal(['signed', 'signed', 'signed']);
    let refused = false;
    await db.knex('sign_jobs').where({ id: files[0]!.jobId }).update({ status: 'anchoring' }).catch(() => (refused = true));
    expect(refused, 'old status check is back').to.equal(true);

    await anchoring.up(db.knex);
    const leaves = await db.knex('anchor_leaves').orderBy('id');
    expect(leaves.map((l) => [l.signed_file_id, l.sha256, l.batch_id])).to.deep.equal(files.map((f) => [f.fileId, f.sha256, null]));
    await db.knex('sign_jobs').where({ id: files[0]!.jobId }).update({ status: 'anchoring' });
  });
});
