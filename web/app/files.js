// Files in the browser: what a picked file really is (by its first bytes, as the API judges it), and saving
// a downloaded Blob under its name.

const SIGNATURES = [
  { type: 'image/png', name: 'PNG image', test: (b) => [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, i) => b[i] === x) },
  { type: 'image/jpeg', name: 'JPEG image', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', name: 'GIF image', test: (b) => ascii(b, 0, 4) === 'GIF8' },
  { type: 'image/webp', name: 'WebP image', test: (b) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP' },
  { type: 'image/heic', name: 'HEIC/HEIF image', test: (b) => ascii(b, 4, 8) === 'ftyp' && /^(hei|hev|mif|msf|avi)/.test(ascii(b, 8, 12)) },
  { type: 'image/tiff', name: 'TIFF image', test: (b) => ['II*\u0000', 'MM\u0000*'].includes(ascii(b, 0, 4)) },
  { type: 'image/bmp', name: 'BMP image', test: (b) => ascii(b, 0, 2) === 'BM' },
  { type: 'application/pdf', name: 'PDF document', test: (b) => ascii(b, 0, 5) === '%PDF-' },
  { type: 'video/mp4', name: 'video', test: (b) => ascii(b, 4, 8) === 'ftyp' },
];

function ascii(bytes, from, to) {
  return String.fromCharCode(...bytes.slice(from, to));
}

/** What the file is, judged by content: { type, name } or null when unknown. */
export async function sniff(file) {
  const bytes = new Uint8Array(await file.slice(0, 16).arrayBuffer());
  return SIGNATURES.find((s) => s.test(bytes)) ?? null;
}

/** A file picker's accept list for formats of the registry (/app/formats.js): their MIME types and extensions. */
export function acceptList(formats) {
  return [...formats.map((f) => f.mimeType), ...formats.flatMap((f) => f.extensions.map((e) => `.${e}`))].join(',');
}

const KIND_WORDS = { image: 'Images', video: 'video', audio: 'audio', document: 'documents' };

/** "Images (JPEG, PNG, ...), video (MP4, ...) and audio (...)": the formats by kind, from their labels. */
export function formatsHint(formats) {
  const parts = Object.entries(KIND_WORDS)
    .map(([kind, word]) => [word, formats.filter((f) => f.kind === kind).map((f) => f.label.replace(/ (image|video|audio|raw image|document|e-book|workbook|presentation|text|spreadsheet|drawing)$/, ''))])
    .filter(([, names]) => names.length > 0)
    .map(([word, names]) => `${word} (${[...new Set(names)].join(', ')})`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : parts.join('');
}

/** The registry's format of a file: by its type or extension, else by its content where the browser can tell. */
export async function formatOf(file, formats) {
  const ext = file.name.includes('.') ? file.name.split('.').pop().toLowerCase() : '';
  const byName = formats.find((f) => f.mimeType === file.type || f.extensions.includes(ext));
  if (byName) return byName;
  const kind = await sniff(file);
  return (kind && formats.find((f) => f.mimeType === kind.type)) ?? null;
}

/**
 * Checks that a file can be signed: one of the registry's formats (the service has the last word, by content).
 * Resolves with null when it can, or with the reason in words.
 */
export async function refusalFor(file, formats) {
  if (file.size === 0) return `“${file.name}” is empty.`;
  const kind = await sniff(file);
  if (kind && !formats.some((f) => f.mimeType === kind.type)) return `“${file.name}” is a ${kind.name}, which the service does not sign.`;
  if (await formatOf(file, formats)) return null;
  return `“${file.name}” is not a format the service signs: ${formatsHint(formats)}.`;
}

/** Saves a Blob as a download through a short-lived object URL (no token ever appears in a URL). */
export function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
