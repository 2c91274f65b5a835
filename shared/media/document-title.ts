/**
 * A document's own title, where its format's metadata gives one (the descriptor's title: walks/document-title.ts),
 * read at upload so that a sign request may leave the title out. Images, video and audio have none here.
 */
import { open } from 'node:fs/promises';
import { runOnFile } from './byte-walk.js';
import { formatFor } from './formats.js';

/** The title, or undefined when the format has no title metadata, the file gives none, or it cannot be read. */
export async function documentTitle(filePath: string, mimeType: string): Promise<string | undefined> {
  const reader = formatFor(mimeType)?.title;
  if (!reader) return undefined;
  const fh = await open(filePath, 'r');
  try {
    const { size } = await fh.stat();
    return await runOnFile(reader(size), fh, size);
  } catch {
    return undefined; // a nicety: a file whose metadata cannot be read is titled by its name
  } finally {
    await fh.close();
  }
}
