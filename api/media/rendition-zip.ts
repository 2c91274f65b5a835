import { PassThrough, type Readable } from 'node:stream';
import yazl from 'yazl';
import type { RenditionPartRow } from '../../shared/db/repositories/rendition-parts.js';
import type { FileStore } from '../../shared/storage/index.js';

/**
 * A signed rendition as one zip (application/zip): its parts in order under their original names (the signed init
 * segment, every signed segment, the playlists as they came), streamed from the file store one part at a time, never
 * whole in memory or on disk. The parts are stored, not compressed (video does not compress), so the zip's size is
 * known before a byte is sent, and ZIP64 is used where a part or the whole passes 4 GiB. Every entry carries `mtime`
 * (when the rendition was signed): the same rendition always gives the same bytes.
 */
export function renditionZip(files: Pick<FileStore, 'openRead'>, parts: readonly RenditionPartRow[], mtime: Date): { stream: Readable; size: number } {
  const zip = new yazl.ZipFile();
  const output = new PassThrough();
  zip.on('error', (err: Error) => output.destroy(err));
  zip.outputStream.on('error', (err: Error) => output.destroy(err));
  for (const part of parts) {
    zip.addReadStreamLazy(part.filename, { size: part.size, compress: false, mtime }, (done) => {
      files.openRead(part.storage_key).then(({ stream }) => done(null, stream), (err: unknown) => done(err, undefined as unknown as NodeJS.ReadableStream));
    });
  }
  let size = -1;
  zip.end(undefined, ((total: number) => {
    size = total;
  }) as () => void);
  if (size < 0) throw new Error('the zip of a rendition has a size known in advance');
  zip.outputStream.pipe(output);
  return { stream: output, size };
}
