/**
 * The upload_sessions table: resumable uploads in progress (tus), each owned by an organisation, with the lease that
 * one request at a time holds on its bytes. Times are the database's clock, so API processes on several hosts agree.
 */
import { Model } from 'objection';
import type { Knex } from '../knex.js';

export type UploadSessionStatus = 'receiving' | 'completing' | 'completed';

export class UploadSession extends Model {
  static override tableName = 'upload_sessions';
  declare id: string;
  declare org_id: string;
  declare user_id: string | null;
  declare api_key_id: string | null;
  declare filename: string;
  declare size: number;
  declare status: UploadSessionStatus;
  declare upload_id: string | null;
  declare lock_token: string | null;
  declare lock_until: Date | null;
  declare release_requested: boolean;
  declare expires_at: Date;
  declare created_at: Date;
  declare updated_at: Date;
}

/** Records a session before any of its bytes exist; it expires `expirySeconds` from now unless a PATCH moves it on. */
export async function insertUploadSession(
  session: Pick<UploadSession, 'id' | 'org_id' | 'user_id' | 'api_key_id' | 'filename' | 'size'>,
  expirySeconds: number,
  db: Knex,
): Promise<UploadSession> {
  return UploadSession.query(db)
    .insert({ ...session, expires_at: db.raw('now() + make_interval(secs => ?)', [expirySeconds]) as unknown as Date })
    .returning('*');
}

/** The organisation's session; another organisation's is not found. */
export async function findOrgUploadSession(orgId: string, id: string, db: Knex): Promise<UploadSession | undefined> {
  return UploadSession.query(db).findOne({ id, org_id: orgId });
}

/** Whether the session's expiry has passed, by the database's clock. */
export async function uploadSessionExpired(id: string, db: Knex): Promise<boolean> {
  const row = (await db('upload_sessions').where({ id }).first(db.raw('expires_at <= now() as expired'))) as { expired: boolean } | undefined;
  return row?.expired ?? true;
}

/** Moves the expiry of a session still receiving to `expirySeconds` from now; returns the new expiry. */
export async function touchUploadSession(id: string, expirySeconds: number, db: Knex): Promise<Date | undefined> {
  const [row] = (await db('upload_sessions')
    .where({ id, status: 'receiving' })
    .update({ expires_at: db.raw('now() + make_interval(secs => ?)', [expirySeconds]), updated_at: db.fn.now() }, ['expires_at'])) as { expires_at: Date }[];
  return row?.expires_at;
}

/** Moves a session from receiving to completing; undefined when another request already did (or it is gone). */
export async function claimUploadSessionCompletion(id: string, db: Knex): Promise<UploadSession | undefined> {
  const [row] = await UploadSession.query(db).where({ id, status: 'receiving' }).patch({ status: 'completing', updated_at: db.fn.now() as unknown as Date }).returning('*');
  return row;
}

/** The session became the upload `uploadId`; its row stays until it expires, so a client that lost the answer can ask. */
export async function markUploadSessionCompleted(id: string, uploadId: string, db: Knex): Promise<void> {
  await UploadSession.query(db).where({ id }).patch({ status: 'completed', upload_id: uploadId, updated_at: db.fn.now() as unknown as Date });
}

/** A completion that could not finish (a service unavailable) gives the session back, bytes and all, for another try. */
export async function reopenUploadSession(id: string, db: Knex): Promise<void> {
  await UploadSession.query(db).where({ id, status: 'completing' }).patch({ status: 'receiving', updated_at: db.fn.now() as unknown as Date });
}

export async function deleteUploadSession(id: string, db: Knex): Promise<void> {
  await UploadSession.query(db).deleteById(id);
}

/** Sessions past their expiry whose lease (if any) has lapsed, oldest expiry first. */
export async function expiredUploadSessions(limit: number, db: Knex): Promise<UploadSession[]> {
  return UploadSession.query(db)
    .where('expires_at', '<=', db.fn.now())
    .where((q) => q.whereNull('lock_until').orWhere('lock_until', '<', db.fn.now()))
    .orderBy('expires_at')
    .limit(limit);
}

/** Takes the session's lease for `ttlMs` when nobody holds it (or the holder's lapsed). */
export async function acquireUploadSessionLease(id: string, token: string, ttlMs: number, db: Knex): Promise<'acquired' | 'held' | 'missing'> {
  const taken = await db('upload_sessions')
    .where({ id })
    .where((q) => q.whereNull('lock_until').orWhere('lock_until', '<', db.fn.now()))
    .update({ lock_token: token, lock_until: db.raw('now() + make_interval(secs => ?)', [ttlMs / 1000]), release_requested: false }, ['id']);
  if (taken.length > 0) return 'acquired';
  return (await db('upload_sessions').where({ id }).first('id')) ? 'held' : 'missing';
}

/** Extends the lease the holder of `token` has; says whether it still holds it and whether another request asked for it. */
export async function renewUploadSessionLease(id: string, token: string, ttlMs: number, db: Knex): Promise<{ held: boolean; releaseRequested: boolean }> {
  const [row] = (await db('upload_sessions')
    .where({ id, lock_token: token })
    .update({ lock_until: db.raw('now() + make_interval(secs => ?)', [ttlMs / 1000]) }, ['release_requested'])) as { release_requested: boolean }[];
  return { held: row !== undefined, releaseRequested: row?.release_requested ?? false };
}

/** Asks the lease's holder to let go. */
export async function requestUploadSessionRelease(id: string, db: Knex): Promise<void> {
  await db('upload_sessions').where({ id }).whereNotNull('lock_token').update({ release_requested: true });
}

export async function releaseUploadSessionLease(id: string, token: string, db: Knex): Promise<void> {
  await db('upload_sessions').where({ id, lock_token: token }).update({ lock_token: null, lock_until: null, release_requested: false });
}
