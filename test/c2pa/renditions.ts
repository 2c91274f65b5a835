/**
 * Fragmented MP4 renditions for the tests, made by ffmpeg in the test: a DASH representation (init segment and media
 * segments with styp and sidx) and an HLS/CMAF one (fMP4 segments with video and audio muxed, so two tracks and two
 * sidx boxes per segment), each with its playlist; plus the judgement c2pa-rs makes of a signed segment.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { BytesBlob, c2paWasm } from '../../shared/c2pa/wasm.js';

const run = promisify(execFile);

export interface RenditionFiles {
  dir: string;
  init: { name: string; bytes: Buffer };
  segments: { name: string; bytes: Buffer }[];
  playlist: { name: string; bytes: Buffer };
}

const read = (dir: string, name: string) => ({ name, bytes: readFileSync(path.join(dir, name)) });

/**
 * A DASH representation of `seconds` of test video, one segment per `segmentSeconds` (a key frame starts each): the
 * init segment, the media segments in order, and the MPD.
 */
export async function makeDashRendition(parent: string, options: { seconds?: number; segmentSeconds?: number; name?: string } = {}): Promise<RenditionFiles> {
  const dir = path.join(parent, options.name ?? 'dash');
  mkdirSync(dir, { recursive: true });
  const seconds = options.seconds ?? 5;
  const segment = options.segmentSeconds ?? 1;
  const gop = String(Math.max(1, Math.round(25 * segment)));
  await run('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc=size=160x120:rate=25:duration=${seconds}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-g', gop, '-keyint_min', gop, '-sc_threshold', '0',
    '-f', 'dash', '-seg_duration', String(segment), '-use_template', '1', '-use_timeline', '0',
    '-init_seg_name', 'init-$RepresentationID$.m4s', '-media_seg_name', 'chunk-$RepresentationID$-$Number%05d$.m4s', 'stream.mpd',
  ], { cwd: dir });
  const segments = readdirSync(dir).filter((f) => f.startsWith('chunk-')).sort().map((f) => read(dir, f));
  return { dir, init: read(dir, 'init-0.m4s'), segments, playlist: read(dir, 'stream.mpd') };
}

/** An HLS rendition with fMP4 segments, video and audio muxed in each (tracks 1 and 2): init.mp4, seg0.m4s..., the playlist. */
export async function makeHlsRendition(parent: string, options: { seconds?: number } = {}): Promise<RenditionFiles> {
  const dir = path.join(parent, 'hls');
  mkdirSync(dir, { recursive: true });
  const seconds = String(options.seconds ?? 3);
  await run('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc=size=160x120:rate=25:duration=${seconds}`, '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25', '-c:a', 'aac', '-f', 'hls', '-hls_time', '1', '-hls_segment_type', 'fmp4', '-hls_playlist_type', 'vod',
    '-hls_fmp4_init_filename', 'init.mp4', '-hls_segment_filename', 'seg%d.m4s', 'index.m3u8',
  ], { cwd: dir });
  const segments = readdirSync(dir).filter((f) => /^seg\d+\.m4s$/.test(f)).sort((a, b) => Number(a.slice(3, -4)) - Number(b.slice(3, -4))).map((f) => read(dir, f));
  return { dir, init: read(dir, 'init.mp4'), segments, playlist: read(dir, 'index.m3u8') };
}

/** c2pa-rs's verdict on one segment with its init segment (c2pa-wasm's fromBlobFragment), trusting `rootPem`. */
export async function fragmentVerdict(init: Uint8Array, segment: Uint8Array, rootPem: string): Promise<{ state: string; failures: string[]; bmff: string[] }> {
  const settings = JSON.stringify({ trust: { trust_anchors: rootPem }, verify: { verify_trust: true } });
  const reader = await c2paWasm().WasmReader.fromBlobFragment('video/mp4', new BytesBlob(new Uint8Array(init), 'video/mp4'), new BytesBlob(new Uint8Array(segment), 'video/mp4'), settings);
  try {
    type Results = { success?: { code: string }[]; failure?: { code: string }[] };
    const json = JSON.parse(reader.json()) as { validation_state: string; validation_results?: { activeManifest?: Results } };
    const active = json.validation_results?.activeManifest;
    const codes = (list?: { code: string }[]) => (list ?? []).map((c) => c.code);
    return { state: json.validation_state, failures: codes(active?.failure), bmff: [...codes(active?.success), ...codes(active?.failure)].filter((c) => c.startsWith('assertion.bmffHash')) };
  } finally {
    reader.free();
  }
}
