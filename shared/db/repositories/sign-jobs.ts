/**
 * The sign job aggregate: a job (sign_jobs), the signed file it produced (signed_files, at most one per job) and that
 * file's manifest store in the public manifest repository (manifest_stores, one per file). One aggregate because the
 * three are written in one transaction when a job completes, go with their job (ON DELETE CASCADE), and every read
 * that joins them (a job's file, a file's manifest, the files whose job follows its organisation) stays in here.
 */
import { randomUUID } from 'node:crypto';
import { Model } from 'objection';
import { PENDING_STATUSES, type JobStatus } from '../../job-status.js';
import type { ManifestPlacement } from '../../domain/manifest-placement.js';
import type { MediaMimeType } from '../../media/formats.js';
import type { Knex } from '../knex.js';
import { applyPage, type PageRequest } from '../page.js';

/**
 * A manifest as a job stores it (JSON). The c2pa module's ManifestInput and ManifestRequest are written here, already
 * validated; they are typed loosely so that this module does not depend on c2pa (shared/ depends one way).
 */
export interface StoredManifest {
  title: string;
  creator?: string;
  thumbnail?: boolean;
}

export class SignJob extends Model {
  static override tableName = 'sign_jobs';
  declare id: string;
  declare org_id: string;
  declare upload_id: string;
  declare user_id: string | null;
  declare api_key_id: string | null;
  declare idempotency_key: string | null;
  /** The manifest the job applies: the template's defaults (if any) with the request's fields over them. */
  declare manifest: StoredManifest;
  /** The manifest as the request gave it (null for jobs made before templates existed: then as `manifest`). */
  declare request_manifest: (Omit<StoredManifest, 'title'> & { title?: string }) | null;
  /** The template and version the job used, or both null. */
  declare template_id: string | null;
  declare template_version: number | null;
  /** The request's or template's discoverability choice; null follows the organisation's setting (migration 008). */
  declare discoverable: boolean | null;
  /** The request's or template's soft-binding choice; null follows the organisation's setting (migration 010). */
  declare soft_binding: boolean | null;
  /** Embedded in the file, or remote: kept in the repository and named by the file (migration 023). */
  declare manifest_placement: ManifestPlacement;
  /** The person the job signs as (a CAWG identity assertion), with their roles; null: the organisation alone. */
  declare identity_user_id: string | null;
  declare identity_roles: string[] | null;
  declare status: JobStatus;
  declare attempts: number;
  declare error_code: string | null;
  declare error_message: string | null;
  declare created_at: Date;
  declare updated_at: Date;

  static override get jsonAttributes(): string[] {
    return ['manifest', 'request_manifest', 'identity_roles'];
  }
}

export class SignedFile extends Model {
  static override tableName = 'signed_files';
  declare id: string;
  declare org_id: string;
  declare job_id: string;
  declare filename: string;
  declare mime_type: MediaMimeType;
  declare size: number;
  declare sha256: string;
  declare storage_key: string;
  declare certificate_serial: string;
  /** Subject of the signing certificate (names the organisation); null for files signed before per-organisation certificates. */
  declare certificate_subject: string | null;
  /** Serial of the identity certificate of the person the file was signed as; null when signed by the organisation alone. */
  declare identity_certificate_serial: string | null;
  declare created_at: Date;
}

// ---- sign_jobs

export type NewSignJob = Pick<
  SignJob,
  'org_id' | 'upload_id' | 'user_id' | 'api_key_id' | 'idempotency_key' | 'manifest' | 'request_manifest' | 'template_id' | 'template_version' | 'discoverable' | 'soft_binding'
> &
  Partial<Pick<SignJob, 'identity_user_id' | 'identity_roles' | 'manifest_placement'>>;

/** Records a queued job; a second job with the organisation's idempotency key is a unique violation. */
export async function insertSignJob(job: NewSignJob, db?: Knex): Promise<SignJob> {
  return SignJob.query(db).insert({ id: randomUUID(), ...job, status: 'queued' }).returning('*');
}

export async function deleteSignJob(id: string, db?: Knex): Promise<void> {
  await SignJob.query(db).deleteById(id);
}

export async function findOrgSignJob(orgId: string, id: string, db?: Knex): Promise<SignJob | undefined> {
  return SignJob.query(db).findOne({ id, org_id: orgId });
}

/** Whose job it is: its organisation and who asked for it (for the audit events of its outcome). */
export async function signJobRequester(id: string, db: Knex): Promise<Pick<SignJob, 'org_id' | 'user_id' | 'api_key_id'> | undefined> {
  return (await db('sign_jobs').where({ id }).first('org_id', 'user_id', 'api_key_id')) as Pick<SignJob, 'org_id' | 'user_id' | 'api_key_id'> | undefined;
}

export async function findSignJobByIdempotencyKey(orgId: string, idempotencyKey: string, db?: Knex): Promise<SignJob | undefined> {
  return SignJob.query(db).findOne({ org_id: orgId, idempotency_key: idempotencyKey });
}

/** A page of the organisation's jobs, newest first (limit + 1 rows: see applyPage), optionally in one status. */
export async function listOrgSignJobs(orgId: string, page: PageRequest, status?: JobStatus, db?: Knex): Promise<SignJob[]> {
  const query = SignJob.query(db).where({ org_id: orgId });
  if (status !== undefined) query.where({ status });
  return applyPage(query, page);
}

/**
 * Claims a job for an attempt in one statement: only a queued or processing job moves to processing (a job already
 * signed or failed is left alone, so a re-delivered job never signs twice). Undefined when there was none to claim.
 */
export async function claimSignJob(id: string, attempt: number, db?: Knex): Promise<SignJob | undefined> {
  const [job] = (await SignJob.query(db)
    .patch({ status: 'processing', attempts: attempt, updated_at: new Date() })
    .where({ id })
    .whereIn('status', PENDING_STATUSES)
    .returning('*')) as unknown as SignJob[];
  return job;
}

export type SignJobStatusPatch = Partial<Pick<SignJob, 'status' | 'error_code' | 'error_message'>>;

export async function updateSignJobStatus(id: string, patch: SignJobStatusPatch, db?: Knex): Promise<void> {
  await SignJob.query(db).patch({ ...patch, updated_at: new Date() }).where({ id });
}

/** Fails a job that is still queued or processing; whether it was. */
export async function failPendingSignJob(id: string, error: { error_code: string; error_message: string }, db?: Knex): Promise<boolean> {
  const changed = await SignJob.query(db).patch({ status: 'failed', ...error, updated_at: new Date() }).where({ id }).whereIn('status', PENDING_STATUSES);
  return changed > 0;
}

/**
 * One page of queued and processing jobs in (created_at, id) order, after `after`: the reconciler walks them all.
 * Rows are raw (updated_at as the driver gives it).
 */
export async function pendingSignJobsPage(
  after: { created_at: Date; id: string } | undefined,
  limit: number,
  db: Knex = SignJob.knex(),
): Promise<{ id: string; status: JobStatus; created_at: Date; updated_at: Date }[]> {
  const query = db('sign_jobs').select('id', 'status', 'created_at', 'updated_at').whereIn('status', PENDING_STATUSES).orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(limit);
  if (after) {
    const { created_at, id } = after;
    query.where((q) => q.where('created_at', '>', created_at).orWhere((q2) => q2.where('created_at', created_at).where('id', '>', id)));
  }
  return (await query) as { id: string; status: JobStatus; created_at: Date; updated_at: Date }[];
}

/**
 * Moves the jobs of the given signed files (ids, or a subquery selecting them) from one of `from` to `to`: anchoring
 * advances jobs by their files' batch.
 */
export async function advanceJobsOfFiles(fileIds: string[] | Knex.QueryBuilder, from: readonly JobStatus[], to: JobStatus, db: Knex = SignJob.knex()): Promise<void> {
  await db('sign_jobs')
    .whereIn('id', db('signed_files').whereIn('id', fileIds).select('job_id'))
    .whereIn('status', from)
    .update({ status: to, updated_at: db.fn.now() });
}

// ---- signed_files

export type NewSignedFile = Pick<SignedFile, 'org_id' | 'job_id' | 'filename' | 'mime_type' | 'size' | 'sha256' | 'storage_key' | 'certificate_serial' | 'certificate_subject'> &
  Partial<Pick<SignedFile, 'identity_certificate_serial'>>;

/** Records a job's signed file; undefined when the job already has one (the unique job_id: a duplicate run). */
export async function insertSignedFile(file: NewSignedFile, db: Knex = SignedFile.knex()): Promise<string | undefined> {
  const inserted = (await db('signed_files').insert({ id: randomUUID(), ...file }).onConflict('job_id').ignore().returning('id')) as Array<{ id: string }>;
  return inserted[0]?.id;
}

export async function signedFileOfJob(jobId: string, db?: Knex): Promise<SignedFile | undefined> {
  return SignedFile.query(db).findOne({ job_id: jobId });
}

/** A subquery selecting the id of a job's signed file (to use inside another repository's query). */
export function signedFileIdOfJobQuery(jobId: string, db: Knex = SignedFile.knex()): Knex.QueryBuilder {
  return db('signed_files').where({ job_id: jobId }).select('id');
}

export async function signedFilesOfJobs(orgId: string, jobIds: string[], db?: Knex): Promise<SignedFile[]> {
  return SignedFile.query(db).whereIn('job_id', jobIds).where({ org_id: orgId });
}

export async function findOrgSignedFile(orgId: string, id: string, db?: Knex): Promise<SignedFile | undefined> {
  return SignedFile.query(db).findOne({ id, org_id: orgId });
}

/**
 * Signed files for which `missing(fileIdColumn)` finds nothing, oldest first, as (sha256, id, created_at): a query
 * another repository inserts from (anchoring's safety net for files without a leaf).
 */
export function signedFilesWithoutQuery(missing: (fileIdColumn: string) => Knex.QueryBuilder, db: Knex = SignedFile.knex()): Knex.QueryBuilder {
  return db('signed_files as f').whereNotExists(missing('f.id')).orderBy([{ column: 'f.created_at' }, { column: 'f.id' }]).select('f.sha256', 'f.id', 'f.created_at');
}

// ---- manifest_stores

export interface NewManifestStore {
  manifestId: string;
  signedFileId: string;
  orgId: string;
  store: Uint8Array;
  discoverable: boolean;
}

export async function insertManifestStore(entry: NewManifestStore, db: Knex = SignJob.knex()): Promise<void> {
  await db('manifest_stores').insert({
    manifest_id: entry.manifestId,
    signed_file_id: entry.signedFileId,
    org_id: entry.orgId,
    store: Buffer.from(entry.store),
    discoverable: entry.discoverable,
  });
}

/** A subquery selecting the organisation's signed files whose job made no discoverability choice of its own. */
export function filesFollowingOrgQuery(orgId: string, db: Knex = SignJob.knex()): Knex.QueryBuilder {
  return db('signed_files as f').join('sign_jobs as j', 'j.id', 'f.job_id').where('f.org_id', orgId).whereNull('j.discoverable').select('f.id');
}

/** Sets the discoverability of the organisation's manifest stores of these files. */
export async function setManifestStoresDiscoverable(orgId: string, fileIds: Knex.QueryBuilder, discoverable: boolean, db: Knex = SignJob.knex()): Promise<void> {
  await db('manifest_stores').where({ org_id: orgId }).whereIn('signed_file_id', fileIds).update({ discoverable });
}

export interface ServedManifest {
  manifest_id: string;
  store: Uint8Array;
  signed_file_id: string;
  sha256: string;
  storage_key: string;
  mime_type: string;
}

/**
 * The manifest stores the public repository serves by id: the discoverable ones, and every remote manifest (its file
 * names that URL and carries no store of its own, so it is served whatever the file's discoverability).
 */
function servedStores(db: Knex): Knex.QueryBuilder {
  return db('manifest_stores as m')
    .join('signed_files as f', 'f.id', 'm.signed_file_id')
    .join('sign_jobs as j', 'j.id', 'f.job_id')
    .where((q) => q.where('m.discoverable', true).orWhere('j.manifest_placement', 'remote'));
}

/** A manifest store the repository serves (servedStores), by its manifest id, with its signed file's hash, storage key and type. */
export async function findServedManifest(manifestId: string, db: Knex = SignJob.knex()): Promise<ServedManifest | undefined> {
  return (await servedStores(db)
    .where({ 'm.manifest_id': manifestId })
    .first('m.manifest_id', 'm.store', 'm.signed_file_id', 'f.sha256', 'f.storage_key', 'f.mime_type')) as ServedManifest | undefined;
}

/**
 * The id of a signed file's manifest store (by the file's id, or by its bytes' SHA-256: the earliest such file) when
 * the public repository serves it (servedStores); else undefined.
 */
export async function servedManifestIdOf(file: { id: string } | { sha256: string }, db: Knex = SignJob.knex()): Promise<string | undefined> {
  const row = (await servedStores(db)
    .where('id' in file ? { 'f.id': file.id } : { 'f.sha256': file.sha256 })
    .orderBy([{ column: 'f.created_at' }, { column: 'f.id' }])
    .first('m.manifest_id')) as { manifest_id: string } | undefined;
  return row?.manifest_id;
}

export interface StoredManifestOfFile {
  manifest_id: string;
  signed_file_id: string;
  store: Uint8Array;
  sha256: string;
}

/** Manifest stores of these signed files that are discoverable or, given `ownOrgId`, that organisation's. */
export async function manifestStoresOfFiles(fileIds: string[], ownOrgId: string | undefined, db: Knex = SignJob.knex()): Promise<StoredManifestOfFile[]> {
  return (await db('manifest_stores as m')
    .join('signed_files as f', 'f.id', 'm.signed_file_id')
    .whereIn('m.signed_file_id', fileIds)
    .where((q) => (ownOrgId ? q.where('m.discoverable', true).orWhere('m.org_id', ownOrgId) : q.where('m.discoverable', true)))
    .select('m.manifest_id', 'm.signed_file_id', 'm.store', 'f.sha256')) as StoredManifestOfFile[];
}

/** For each signed file with these bytes: its manifest store's discoverability (null without a store). */
export async function manifestDiscoverabilityOfBytes(sha256: string, db: Knex = SignJob.knex()): Promise<(boolean | null)[]> {
  const rows = (await db('signed_files as f').leftJoin('manifest_stores as m', 'm.signed_file_id', 'f.id').where('f.sha256', sha256).select('m.discoverable')) as { discoverable: boolean | null }[];
  return rows.map((r) => r.discoverable);
}

// ---- for webhook events (shared/anchoring/job-webhooks.ts): jobs and files by id, whatever their organisation

export async function signJobsByIds(ids: readonly string[], db?: Knex): Promise<SignJob[]> {
  return ids.length === 0 ? [] : SignJob.query(db).whereIn('id', ids);
}

/** Ids of the jobs of the given signed files (ids, or a subquery selecting them). */
export async function jobIdsOfFiles(fileIds: string[] | Knex.QueryBuilder, db: Knex = SignJob.knex()): Promise<string[]> {
  return ((await db('signed_files').whereIn('id', fileIds).select('job_id')) as { job_id: string }[]).map((r) => r.job_id);
}

export async function signedFilesOfJobIds(jobIds: readonly string[], db?: Knex): Promise<SignedFile[]> {
  return jobIds.length === 0 ? [] : SignedFile.query(db).whereIn('job_id', jobIds);
}
