/**
 * A process of its own that reads one large file with c2pa-rs and exits (started by large-file-verification.ts).
 * c2pa-wasm's memory only grows: reading a 256 MiB MP4 takes about 0.5 GiB of it, which would stay with an API
 * process for good; here it goes back to the system when the process ends.
 *
 * Protocol (IPC): the parent sends one VerifyRequest; the child answers one VerifyAnswer and exits.
 */
import { readAssetFile, type VerificationReport } from '../../shared/c2pa/read-asset.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';

export interface VerifyRequest {
  filePath: string;
  mimeType: SignableMimeType;
  trustAnchorsPem: string[];
}

export type VerifyAnswer = { report: VerificationReport } | { error: { name: string; message: string } };

// The parent gone (killed, or it gave up on this file): leave too.
process.once('disconnect', () => process.exit(1));

process.once('message', (msg: VerifyRequest) => {
  void readAssetFile(msg.filePath, msg.mimeType, { trustAnchorsPem: msg.trustAnchorsPem })
    .then(
      (report): VerifyAnswer => ({ report }),
      (err: unknown): VerifyAnswer => ({ error: { name: err instanceof Error ? err.name : 'Error', message: err instanceof Error ? err.message : String(err) } }),
    )
    .then((answer) => process.send?.(answer, () => process.exit(0)));
});
