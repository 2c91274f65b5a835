/**
 * A document's own title, where its format's metadata gives one (the descriptor's title: walks/document-title.ts),
 * read at upload so that a sign request may leave the title out. Images, video and audio have none here.
 */
import { walkFileOrUndefined } from './byte-walk.js';
import { formatFor } from './formats.js';

/** The title, or undefined when the format has no title metadata, the file gives none, or it cannot be read. */
export async function documentTitle(filePath: string, mimeType: string): Promise<string | undefined> {
  return walkFileOrUndefined(filePath, formatFor(mimeType)?.title);
}
