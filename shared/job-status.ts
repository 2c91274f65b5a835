/**
 * A sign job's life: queued -> processing -> signed -> anchoring -> anchored, or failed. The signed file exists from
 * `signed` on; anchoring (its batch is sealed and on its way to the chain) and anchored (confirmed) follow without
 * holding it up. A plain module: the repository, the worker and the HTTP contract all name these states.
 */
export const JOB_STATUSES = ['queued', 'processing', 'signed', 'anchoring', 'anchored', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/**
 * States a job leaves on its own before its signed file exists; `?wait=` holds requests while a job is in one of
 * these. It does not wait for anchoring (which takes up to ANCHOR_BATCH_MAX_AGE_MS plus confirmations).
 */
export const PENDING_STATUSES: readonly JobStatus[] = ['queued', 'processing'];
/** States in which the job's signed file exists (and is downloadable). */
export const SIGNED_STATUSES: readonly JobStatus[] = ['signed', 'anchoring', 'anchored'];
