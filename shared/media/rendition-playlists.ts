import { open } from 'node:fs/promises';
import { ServiceError } from '../errors.js';

/**
 * The playlists sent with a fragmented MP4 rendition (a DASH MPD, an HLS media playlist), which come back unchanged
 * with the signed rendition. Signing inserts a box into every segment, so a playlist that addresses byte ranges inside
 * the segments (HLS EXT-X-BYTERANGE, DASH indexRange/mediaRange/range) would point at the wrong bytes: such a playlist
 * is refused rather than returned wrong. One that names segments by file, as packagers write them for separate segment
 * files, stays right.
 */

/** The largest playlist kept. A VOD playlist of ten thousand segments is well under a megabyte. */
export const MAX_PLAYLIST_BYTES = 4 * 1024 * 1024;

export type PlaylistKind = 'mpd' | 'm3u8';

export class PlaylistRejectedError extends ServiceError {
  constructor(message: string) {
    super('unprocessable', 'playlist_invalid', message);
    this.name = 'PlaylistRejectedError';
  }
}

const BYTE_RANGES: Record<PlaylistKind, RegExp> = {
  m3u8: /#EXT-X-BYTERANGE|BYTERANGE=/i,
  mpd: /\b(indexRange|mediaRange|range)\s*=/,
};

/** Checks a playlist (`name`: the part's file name, for messages) and returns its kind. */
export async function checkPlaylist(filePath: string, name: string, size: number): Promise<PlaylistKind> {
  if (size > MAX_PLAYLIST_BYTES) throw new PlaylistRejectedError(`the playlist ${name} is ${size} bytes, over the ${MAX_PLAYLIST_BYTES} a playlist may have`);
  const handle = await open(filePath, 'r');
  let text: string;
  try {
    text = (await handle.readFile()).toString('utf8').replace(/^\uFEFF/, '');
  } finally {
    await handle.close();
  }
  const kind: PlaylistKind | undefined = text.startsWith('#EXTM3U') ? 'm3u8' : /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<MPD[\s>]/.test(text) ? 'mpd' : undefined;
  if (!kind) throw new PlaylistRejectedError(`the playlist ${name} is neither an HLS playlist (#EXTM3U) nor a DASH MPD`);
  if (BYTE_RANGES[kind].test(text)) {
    throw new PlaylistRejectedError(`the playlist ${name} addresses byte ranges inside the segments, which signing moves (each segment gains a box): send playlists that name whole segment files`);
  }
  return kind;
}
