/**
 * Verifying a fragmented MP4 rendition sent to POST /v1/media/verify (one part `init`, its `fragment` parts in order):
 * the init segment's manifest judged as any file's is (trust in use, the signer's revocation status, its timestamp,
 * the on-chain anchor of the init segment the service signed), and one verdict per segment, each checked against the
 * manifest's Merkle tree in the verification pool (shared/c2pa/bmff-rendition-read.ts). Nothing is kept.
 */
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { withSignerVouchedForTimestampsOnly, type VerificationReport } from '../../shared/c2pa/verification-report.js';
import { chainReaderFor } from '../../shared/chain/readers.js';
import { formatFor, identifyMedia } from '../../shared/media/formats.js';
import type { AppContext } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import { verifyAnchor } from '../media/anchor-verification.js';
import { assertWithinUploadLimit, type ReceivedPart } from '../media/multipart-file.js';
import { judgeSigner } from '../media/verification.js';
import { trustInUse } from '../media/verification-trust.js';
import type { VerifyRequest } from './verification.js';

type Context = Pick<AppContext, 'knex' | 'config' | 'verifyPool'>;

const isTrusted = (r: Pick<VerificationReport, 'status'>) => r.status.success.includes('signingCredential.trusted');

/** Whether the verify body sent a rendition (an `init` part) rather than a file. */
export const isRenditionBody = (parts: readonly ReceivedPart[]) => parts.some((p) => p.name === 'init');

/** The verdicts of a rendition's parts: the init segment's manifest, the rendition as a whole, and each segment. */
export async function verifyRendition(ctx: Context, parts: readonly ReceivedPart[], { ownOrgId, signal }: VerifyRequest = {}) {
  const init = parts.filter((p) => p.name === 'init');
  const segments = parts.filter((p) => p.name === 'fragment');
  if (init.length !== 1 || !segments.length || parts.some((p) => p.name === 'file' || p.name === 'manifest')) {
    throw badRequest('send a rendition as one part "init" and its "fragment" parts in order (no "file" or "manifest" part with them)', 'rendition_parts');
  }
  const { mimeType } = await identifyMedia(init[0]!.staged.tempPath);
  if (formatFor(mimeType)?.streamed !== 'bmff') throw new ApiError('unsupported', 'unsupported_media_type', `the init segment is ${mimeType}, not an ISO BMFF init segment`);
  assertWithinUploadLimit(ctx.config, mimeType, parts.reduce((n, p) => n + p.staged.size, 0));

  const { store: trustStore, trust } = await trustInUse(ctx.knex, ctx.config, ownOrgId);
  const initPath = init[0]!.staged.tempPath;
  const read = await ctx.verifyPool.run(
    'verify_rendition',
    { initPath, mimeType: mimeType as SignableMimeType, segmentPaths: segments.map((s) => s.staged.tempPath), trust: trust.all, tsaAnchors: trust.tsaAnchors },
    signal,
  );
  const store = read.store ?? undefined;
  // Who signed does not depend on the segments: the store alone tells.
  const vouching = () => ctx.verifyPool.run('trust_source', { filePath: initPath, mimeType, readWhole: false, candidates: trust.candidates, manifest: store }, signal);
  const judged = await judgeSigner(ctx.knex, trustStore, read.report, vouching);
  // A signer trusted only through an anchor for timestamps is so for every segment too.
  const vouched = (r: VerificationReport) => (isTrusted(read.report) && !isTrusted(judged) ? withSignerVouchedForTimestampsOnly(r) : r);
  const sha256 = init[0]!.staged.sha256;
  return {
    ...judged,
    mime_type: mimeType,
    sha256,
    // The service anchors the init segment it signs: its manifest commits to every segment.
    anchor: await verifyAnchor(ctx.knex, ctx.config.baseUrl, sha256, chainReaderFor(ctx.config)),
    fragments: read.segments.map(vouched).map((report, i) => ({
      index: i + 1,
      filename: segments[i]!.filename || `segment-${i + 1}.m4s`,
      sha256: segments[i]!.staged.sha256,
      validation_state: report.validation_state,
      summary: report.summary,
      status: report.status,
      failures: report.failures,
    })),
    checked_at: new Date().toISOString(),
  };
}
