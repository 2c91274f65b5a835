import type { ZodContentObject } from '@asteasolutions/zod-to-openapi';
import type { MediaKind } from '../../shared/media/format-descriptor.js';
import { remoteManifestRefusal } from '../../shared/c2pa/remote-manifest.js';
import { MEDIA_FORMATS } from '../../shared/media/formats.js';
import { z } from './zod.js';

/**
 * The media formats of the contract, from the format registry (shared/media/formats.ts): the one place the API's
 * description reads them, so a format added there is in /openapi.json, /docs and the web app's pickers at once.
 */
export const mediaFormats = MEDIA_FORMATS.map(({ mimeType, extensions, kind, label }) => ({
  mimeType,
  extensions: [...extensions],
  kind,
  label,
  // Whether a file of the format can be signed with manifest_placement "remote".
  remoteManifest: remoteManifestRefusal(mimeType) === undefined,
}));

const typesOf = (kinds: readonly MediaKind[]) => mediaFormats.filter((f) => kinds.includes(f.kind)).map((f) => f.mimeType);

/** "JPEG, PNG, ... images; MP4, ... video; ... audio", for descriptions. */
export function formatsInWords(kinds: readonly MediaKind[] = ['image', 'video', 'audio', 'document']): string {
  const names = (kind: MediaKind) => mediaFormats.filter((f) => f.kind === kind).map((f) => f.label.replace(/ (image|video|audio|raw image|document|e-book|workbook|presentation|text|spreadsheet|drawing)$/, ''));
  const words: Record<MediaKind, string> = { image: 'images', video: 'video', audio: 'audio', document: 'documents' };
  return kinds.map((kind) => `${[...new Set(names(kind))].join(', ')} ${words[kind]}`).join('; ');
}

/** The MIME type of a stored upload or signed file. */
export const MediaType = z.enum(mediaFormats.map((f) => f.mimeType) as [string, ...string[]]).openapi('MediaType', {
  description: 'a format of the registry, told by content when the file was uploaded',
});

const binary = z.string().openapi({ format: 'binary' });

/** A multipart/form-data body with one part named file, of one of the formats of `kinds`. */
function multipartFile(kinds: readonly MediaKind[]): ZodContentObject {
  return {
    'multipart/form-data': {
      schema: z.object({ file: binary }),
      encoding: { file: { contentType: typesOf(kinds).join(', ') } },
    },
  };
}

/** The file as the whole body, in its own media type: one entry per format of `kinds`. */
function rawFile(kinds: readonly MediaKind[]): ZodContentObject {
  return Object.fromEntries(typesOf(kinds).map((type) => [type, { schema: binary }]));
}

const ALL_KINDS: readonly MediaKind[] = ['image', 'video', 'audio', 'document'];

/** A detached C2PA manifest store (.c2pa sidecar, JUMBF). */
const MANIFEST_STORE = 'application/c2pa';

/** The verify routes' multipart body: the file (or a manifest store alone) and, optionally, its sidecar manifest store. */
function multipartVerify(rendition = false): ZodContentObject {
  return {
    'multipart/form-data': {
      schema: z.object({
        file: binary.openapi({ description: 'the file to verify, or a .c2pa manifest store alone (its report; the binding to an asset is then not checked)' }),
        manifest: binary.optional().openapi({ description: "the file's sidecar manifest store (.c2pa): read with the file, its data hash checked against the file" }),
        ...(rendition
          ? {
              init: binary.optional().openapi({ description: "instead of file: a fragmented MP4 rendition's init segment (signed-in verify only), with its fragment parts" }),
              fragment: z.array(binary).optional().openapi({ description: "the rendition's media segments (.m4s), one part each, in order: one verdict each" }),
            }
          : {}),
      }),
      encoding: { file: { contentType: [...typesOf(ALL_KINDS), MANIFEST_STORE].join(', ') }, manifest: { contentType: MANIFEST_STORE } },
    },
  };
}

/** A multipart/form-data body with one part named file, or a fragmented MP4 rendition's parts (`verb`: what is done with it). */
function multipartFileOrRendition(kinds: readonly MediaKind[], verb: string, extra: Record<string, z.ZodType> = {}): ZodContentObject {
  return {
    'multipart/form-data': {
      schema: z.object({
        file: binary.optional().openapi({ description: `the file to ${verb} (not with a rendition's parts)` }),
        init: binary.optional().openapi({ description: `a fragmented MP4 rendition's init segment (with its "fragment" parts): the rendition to ${verb}` }),
        fragment: z.array(binary).optional().openapi({ description: "the rendition's media segments (.m4s), one part each, in order" }),
        ...extra,
      }),
      encoding: { file: { contentType: typesOf(kinds).join(', ') }, init: { contentType: 'video/mp4, audio/mp4' }, fragment: { contentType: 'video/iso.segment, video/mp4, audio/mp4' } },
    },
  };
}

/** Request bodies of the media routes: what each takes, by media type. */
export const mediaBodies = {
  /** POST /v1/media/upload: multipart only, a file or a rendition. */
  upload: {
    required: true,
    content: multipartFileOrRendition(ALL_KINDS, 'sign', {
      playlist: z.array(binary).optional().openapi({ description: "the rendition's playlists (.mpd, .m3u8), returned unchanged with the signed rendition" }),
    }),
  },
  /** POST /v1/media/verify: multipart only, with an optional sidecar. */
  verify: { required: true, content: multipartVerify(true) },
  /** POST /v1/verify: multipart (with an optional sidecar) or the raw file (or store), every format. */
  anyFile: { required: true, content: { ...multipartVerify(), ...rawFile(ALL_KINDS), [MANIFEST_STORE]: { schema: binary } } },
  /** POST /v1/matches/byContent: images only (their fingerprint). */
  image: { required: true, content: { ...rawFile(['image']), ...multipartFile(['image']) } },
};

/** A signed file in its own media type. */
export const signedFileContent: ZodContentObject = Object.fromEntries(mediaFormats.map((f) => [f.mimeType, { schema: binary }]));
