/**
 * tus's lock as a lease on the upload session's row (api/media/resumable/session-lease.ts), as two API processes see
 * it: one holder at a time, a waiting request asks the holder to let go, a crashed holder's lease lapses.
 */
import { ERRORS } from '@tus/utils';
import { expect } from 'chai';
import { SessionLeaseLocker } from '../../api/media/resumable/session-lease.js';
import { acquireUploadSessionLease, insertUploadSession } from '../../shared/db/repositories/upload-sessions.js';
import { registerAccount, startTestApi, type TestApi } from '../support/api.js';

const TIMES = { ttlMs: 300, waitMs: 5000, retryMs: 20 };

describe('upload session leases (tus locks shared by API processes)', function () {
  this.timeout(30_000);
  let api: TestApi;
  let orgId: string;
  let n = 0;

  before(async () => {
    api = await startTestApi({}, { issuer: false });
    orgId = (await registerAccount(api.app, 'Newsroom')).orgId;
  });
  after(() => api.close());

  const session = async () => {
    n += 1;
    const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    await insertUploadSession({ id, org_id: orgId, user_id: null, api_key_id: null, filename: 'a.mp4', size: 10 }, 3600, api.db.knex);
    return id;
  };

  it('lets one request hold a session; the next asks it to let go and gets it once it has', async () => {
    const id = await session();
    // Two lockers: two API processes.
    const first = new SessionLeaseLocker(api.db.knex, TIMES).newLock(id);
    const second = new SessionLeaseLocker(api.db.knex, TIMES).newLock(id);
    let asked = 0;
    await first.lock(new AbortController().signal, async () => {
      asked += 1;
      await first.unlock();
    });
    let secondHeld = false;
    const waiting = second.lock(new AbortController().signal, () => undefined).then(() => (secondHeld = true));
    await waiting;
    expect(asked).to.equal(1);
    expect(secondHeld).to.equal(true);
    await second.unlock();
  });

  it('takes over a lease its holder stopped renewing (a crashed process)', async () => {
    const id = await session();
    expect(await acquireUploadSessionLease(id, 'crashed-process', TIMES.ttlMs, api.db.knex)).to.equal('acquired');
    const lock = new SessionLeaseLocker(api.db.knex, TIMES).newLock(id);
    await lock.lock(new AbortController().signal, () => undefined);
    await lock.unlock();
  });

  it('refuses a lock on a session that does not exist, and gives up when the request is aborted', async () => {
    const missing = new SessionLeaseLocker(api.db.knex, TIMES).newLock('00000000-0000-4000-8000-999999999999');
    expect(await missing.lock(new AbortController().signal, () => undefined).catch((e: unknown) => e)).to.equal(ERRORS.FILE_NOT_FOUND);

    const id = await session();
    const holder = new SessionLeaseLocker(api.db.knex, TIMES).newLock(id);
    await holder.lock(new AbortController().signal, () => undefined); // never lets go
    const abort = new AbortController();
    const waiter = new SessionLeaseLocker(api.db.knex, { ...TIMES, waitMs: 60_000 }).newLock(id).lock(abort.signal, () => undefined);
    abort.abort();
    expect(await waiter.catch((e: unknown) => e)).to.equal(ERRORS.ABORTED);
    await holder.unlock();
  });
});
