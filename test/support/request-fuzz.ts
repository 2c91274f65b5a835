import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { resolve, type OpenApiDoc, type Operation, type Parameter, type Schema } from './openapi-operations.js';
import type { HostileMedia } from './hostile-media.js';
import type { Transport } from './raw-http.js';

/**
 * Requests for the request fuzzer (test/api/request-fuzz.test.ts): valid ones built from the OpenAPI document and a
 * registered organisation's data, then broken by fast-check at every layer (request line, headers, framing, body
 * syntax, body values, multipart structure, the transfer itself) and rendered to the raw bytes that go on the wire.
 */

/** What a registered organisation has, so that valid requests reach past authentication and lookups. */
export interface FuzzContext {
  port: number;
  access: string;
  apiKey: string;
  /** Ids the path parameters of the same name take when a case keeps them valid (victims: deleting them is harmless). */
  known: Record<string, string>;
  /** Valid values of body fields that need one from the context (an upload id, a refresh token...). */
  fieldValues: Record<string, string>;
  /** Small valid files for multipart and image bodies. */
  files: Array<{ name: string; type: string; bytes: Buffer }>;
  /** What hostile files and sidecars are made of (hostile-media.ts); without it multipart bodies carry `files` only. */
  hostile?: Pick<HostileMedia, 'bmff' | 'sidecars' | 'remoteFiles'>;
}

/** Header lines as sent: a name and a value, or a line of junk. */
type HeaderLine = [string, string] | string;

export interface FuzzRequest {
  route: string;
  method: string;
  target: string;
  headers: HeaderLine[];
  body: Buffer;
  transport: Transport;
  /** Whether the request as framed is complete, so that the server owes an answer. */
  complete: boolean;
  /** What was done to it, in words, for the findings list. */
  summary: string[];
}

let unique = 0;

/** A valid JSON body for `schema`: every property filled, from the context where a field needs a real value. */
export function validJson(doc: OpenApiDoc, schema: Schema, ctx: FuzzContext, name = ''): unknown {
  const s = resolve(doc, schema);
  if (name in ctx.fieldValues) return ctx.fieldValues[name];
  switch (name) {
    case 'email':
      unique += 1;
      return `fuzz${unique}-${Date.now()}@example.com`;
    case 'password':
      return 'a long enough passphrase';
    case 'name':
    case 'org_name':
      unique += 1;
      return `Fuzz ${unique} ${randomUUID().slice(0, 8)}`;
    case 'url':
      return 'https://example.com/about';
    case 'dateCreated':
      return '2024-05-01';
    case 'digitalSourceType':
      return 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture';
    case 'use':
      return 'constrained';
    case 'role':
      return 'viewer';
  }
  if (s.enum) return s.enum[0];
  switch (s.type) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, validJson(doc, v, ctx, k)]));
    case 'array':
      return s.items ? [validJson(doc, s.items, ctx)] : [];
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    default:
      if (s.format === 'uuid') return randomUUID();
      if (typeof s.example === 'string') return s.example;
      return 'Fuzz text';
  }
}

/** A copy of `value` with the field at `path` set to `to` (objects created along the way). */
export function setField(value: unknown, path: string[], to: unknown): unknown {
  if (path.length === 0) return to;
  const [head, ...rest] = path as [string, ...string[]];
  const base = typeof value === 'object' && value !== null ? value : {};
  const copy: Record<string, unknown> = Array.isArray(base) ? ([...base] as unknown as Record<string, unknown>) : { ...base };
  copy[head] = setField((base as Record<string, unknown>)[head], rest, to);
  return copy;
}

/** The field at `path` of a JSON value, if there is one. */
export function getField(value: unknown, path: string[]): unknown {
  let at = value;
  for (const key of path) at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined;
  return at;
}

/** Every path to a leaf (or container) of a JSON value, the root included. */
function jsonPaths(value: unknown, prefix: string[] = []): string[][] {
  const out = [prefix];
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) out.push(...jsonPaths(v, [...prefix, k]));
  }
  return out;
}

/** The values that broke things in the past or tend to: control characters, lone surrogates, bidi overrides, sizes. */
export const NASTY_STRINGS = [
  'a\u0000b',
  '\u0000',
  'a\ud800b',
  '\udfff',
  '\ud83d',
  'x\u202eevil\u202c',
  'zero\u200bwidth',
  '\ufeff',
  '%00',
  "'; DROP TABLE users; --",
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '9'.repeat(400),
  'é'.repeat(3000),
  ' ',
  '',
];

const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 300, maxLength: 3000 }) },
);

const nastyJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: nastyString },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, 0, -1, 1e308, -0, 2 ** 53 + 1, 1.5, [], {}, [[[[[]]]]], { __proto__: { admin: true } }) },
);

type JsonMutation =
  | { kind: 'valid' }
  | { kind: 'set'; pick: number; value: unknown }
  | { kind: 'remove'; pick: number }
  | { kind: 'extra-key'; key: string; value: unknown }
  | { kind: 'replace-root'; value: unknown }
  | { kind: 'deep'; depth: number }
  | { kind: 'proto'; key: '__proto__' | 'constructor' | 'prototype' };

const jsonMutation: fc.Arbitrary<JsonMutation> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'valid' as const }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), value: nastyJsonValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('extra-key' as const), key: fc.string({ unit: 'binary', maxLength: 20 }), value: nastyJsonValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace-root' as const), value: nastyJsonValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deep' as const), depth: fc.integer({ min: 100, max: 5000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('proto' as const), key: fc.constantFrom('__proto__' as const, 'constructor' as const, 'prototype' as const) }) },
);

function applyJsonMutation(base: unknown, m: JsonMutation): { text: string; summary: string } {
  const paths = jsonPaths(base);
  const at = (pick: number) => paths[pick % paths.length]!;
  switch (m.kind) {
    case 'valid':
      return { text: JSON.stringify(base), summary: 'json valid' };
    case 'set': {
      const p = at(m.pick);
      return { text: JSON.stringify(setField(base, p, m.value)), summary: `json ${p.join('.') || '(root)'}=${short(m.value)}` };
    }
    case 'remove': {
      const p = at(m.pick);
      if (p.length === 0) return { text: '', summary: 'json empty body' };
      const parent = setField(base, p, undefined);
      return { text: JSON.stringify(parent), summary: `json without ${p.join('.')}` };
    }
    case 'extra-key':
      return { text: JSON.stringify({ ...(base as object), [m.key]: m.value }), summary: `json extra key ${short(m.key)}=${short(m.value)}` };
    case 'replace-root':
      return { text: JSON.stringify(m.value) ?? 'undefined', summary: `json body ${short(m.value)}` };
    case 'deep':
      return { text: '['.repeat(m.depth) + ']'.repeat(m.depth), summary: `json nested ${m.depth} deep` };
    case 'proto': {
      const text = JSON.stringify(base).replace(/^\{/, `{"${m.key}":{"isAdmin":true,"role":"admin"},`);
      return { text, summary: `json with ${m.key} key` };
    }
  }
}

function short(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 40)}...(${text.length} chars)` : text;
}

/**
 * A hostile file for the sidecar and remote paths: an MP4 followed by a soup of boxes (four or eight bytes each; up to
 * a few thousand, or around the service's 10,000-box limit), boxes nested deep inside its moov, or a JPEG whose
 * manifest is remote. The random cases keep bodies under about 100 KB, as the other files are: a megabyte body answered
 * before it is read (a 401) may be reset by the kernel under the answer. Soups of hundreds of thousands of boxes are
 * sent, signed in, by test/api/request-fuzz.test.ts's own hostile-bodies test and bench/hostile/fuzz-requests.ts.
 */
export type HostileFile =
  | { kind: 'soup'; count: number; size: 4 | 8; type: string }
  | { kind: 'nested'; depth: number; count: number }
  | { kind: 'remote'; pick: number };

const boxCount = fc.oneof({ weight: 2, arbitrary: fc.integer({ min: 0, max: 3_000 }) }, { weight: 1, arbitrary: fc.integer({ min: 9_980, max: 10_020 }) });

export const hostileFile: fc.Arbitrary<HostileFile> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('soup' as const), count: boxCount, size: fc.constantFrom(4 as const, 8 as const), type: fc.constantFrom('junk', 'free', 'skip', 'uuid', 'moov', 'mdat', 'meta') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('nested' as const), depth: fc.integer({ min: 1, max: 40 }), count: boxCount }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remote' as const), pick: fc.nat() }) },
);

/** The manifest part sent with a file: one of the context's sidecar stores, whole or cut short, or random bytes. */
export type SidecarChoice = { kind: 'store'; pick: number } | { kind: 'truncated'; pick: number; at: number } | { kind: 'bytes'; bytes: Uint8Array };

export const sidecarChoice: fc.Arbitrary<SidecarChoice> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('store' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncated' as const), pick: fc.nat(), at: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bytes' as const), bytes: fc.uint8Array({ maxLength: 200 }) }) },
);

/** `count` boxes of `size` bytes: empty boxes of `type`, or (4) size fields alone, each the next one's type. */
function boxSoup(count: number, size: 4 | 8, type: string): Buffer {
  const soup = Buffer.alloc(count * size);
  for (let i = 0; i < count; i += 1) {
    soup.writeUInt32BE(size, i * size);
    if (size === 8) soup.write(type, i * size + 4, 'latin1');
  }
  return soup;
}

/** The MP4 with `inner` inside `depth` nested udta boxes at the end of its moov (moov's size grown to hold them). */
function nestedInMoov(mp4: Buffer, depth: number, inner: Buffer): Buffer {
  let at = 0;
  while (at + 8 <= mp4.length && mp4.toString('latin1', at + 4, at + 8) !== 'moov') at += mp4.readUInt32BE(at) || mp4.length;
  if (at + 8 > mp4.length) return Buffer.concat([mp4, inner]);
  const moovEnd = at + mp4.readUInt32BE(at);
  let body = inner;
  for (let i = 0; i < depth; i += 1) {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(8 + body.length);
    head.write('udta', 4, 'latin1');
    body = Buffer.concat([head, body]);
  }
  const out = Buffer.concat([mp4.subarray(0, moovEnd), body, mp4.subarray(moovEnd)]);
  out.writeUInt32BE(moovEnd - at + body.length, at);
  return out;
}

/** The bytes of a hostile file, and how the findings list names it. */
export function renderHostileFile(hostile: NonNullable<FuzzContext['hostile']>, h: HostileFile): { name: string; type: string; bytes: Buffer; summary: string } {
  if (h.kind === 'remote') {
    const file = hostile.remoteFiles[h.pick % hostile.remoteFiles.length]!;
    return { ...file, summary: `remote manifest file ${file.name}` };
  }
  if (h.kind === 'nested') {
    return { name: 'nested.mp4', type: 'video/mp4', bytes: nestedInMoov(hostile.bmff, h.depth, boxSoup(h.count, 8, 'junk')), summary: `MP4 with ${h.count} boxes ${h.depth} udta deep` };
  }
  const tail = h.size === 4 ? boxSoup(1, 8, 'free') : Buffer.alloc(0);
  return { name: 'soup.mp4', type: 'video/mp4', bytes: Buffer.concat([hostile.bmff, boxSoup(h.count, h.size, h.type), tail]), summary: `MP4 + ${h.count} ${h.size}-byte ${h.size === 8 ? `${h.type} ` : ''}boxes` };
}

/** The bytes of a manifest part, and how the findings list names it. */
export function renderSidecar(hostile: NonNullable<FuzzContext['hostile']>, c: SidecarChoice): { bytes: Buffer; summary: string } {
  if (c.kind === 'bytes') return { bytes: Buffer.from(c.bytes), summary: `manifest part of ${c.bytes.length} random bytes` };
  const index = c.pick % hostile.sidecars.length;
  const store = hostile.sidecars[index]!;
  if (c.kind === 'store') return { bytes: store, summary: `sidecar #${index}` };
  const at = Math.floor(store.length * c.at);
  return { bytes: store.subarray(0, at), summary: `sidecar #${index} cut at ${at}/${store.length}` };
}

/** A multipart body: the parts, the boundary and the part header details a client controls. */
interface MultipartChoice {
  fileIndex: number;
  fileBytes: 'as-is' | 'truncated' | 'empty' | 'random';
  truncateAt: number;
  random: Uint8Array;
  partName: string;
  filename: string | null;
  partType: string | null;
  extraFields: number;
  extraFiles: number;
  boundary: string;
  closing: boolean;
  /** With a context's `hostile`: a hostile file in place of one of `files`, and a manifest part. */
  hostile: HostileFile | null;
  manifest: SidecarChoice | null;
}

const multipartChoice: fc.Arbitrary<MultipartChoice> = fc.record({
  fileIndex: fc.nat(),
  fileBytes: fc.constantFrom('as-is' as const, 'as-is' as const, 'truncated' as const, 'empty' as const, 'random' as const),
  truncateAt: fc.double({ min: 0, max: 1, noNaN: true }),
  random: fc.uint8Array({ maxLength: 600 }),
  partName: fc.oneof({ weight: 6, arbitrary: fc.constant('file') }, { weight: 1, arbitrary: fc.constantFrom('File', 'files', '', 'file\u0000', 'fïle') }),
  filename: fc.option(fc.oneof(fc.constantFrom('a.jpg', 'a.png', '../../etc/passwd', 'a\u0000.jpg', '\u202egpj.exe', 'x'.repeat(1000), '"'), fc.string({ unit: 'binary', maxLength: 30 })), { nil: null, freq: 5 }),
  partType: fc.option(fc.constantFrom('image/jpeg', 'image/png', 'application/octet-stream', 'text/plain', 'image/svg+xml', 'video/mp4', 'garbage', ''), { nil: null, freq: 4 }),
  extraFields: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) }),
  extraFiles: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) }),
  boundary: fc.oneof({ weight: 5, arbitrary: fc.constant('FuzzBoundary7MA4YWxk') }, { weight: 1, arbitrary: fc.constantFrom('a', 'x'.repeat(70), 'x'.repeat(200), '--', 'b o u n d', 'é') }),
  closing: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  hostile: fc.option(hostileFile, { nil: null, freq: 3 }),
  manifest: fc.option(sidecarChoice, { nil: null, freq: 2 }),
});

function renderMultipart(ctx: FuzzContext, m: MultipartChoice): { body: Buffer; boundary: string; summary: string } {
  const hostile = ctx.hostile && m.hostile ? renderHostileFile(ctx.hostile, m.hostile) : undefined;
  const sidecar = ctx.hostile && m.manifest ? renderSidecar(ctx.hostile, m.manifest) : undefined;
  const file = hostile ?? ctx.files[m.fileIndex % ctx.files.length]!;
  let bytes: Buffer = file.bytes;
  // A hostile file is sent as made: its damage is its structure.
  if (!hostile && m.fileBytes === 'truncated') bytes = bytes.subarray(0, Math.floor(bytes.length * m.truncateAt));
  if (!hostile && m.fileBytes === 'empty') bytes = Buffer.alloc(0);
  if (!hostile && m.fileBytes === 'random') bytes = Buffer.from(m.random);
  const b = m.boundary;
  const parts: Buffer[] = [];
  const part = (name: string, filename: string | null, type: string | null, content: Buffer) => {
    let head = `--${b}\r\nContent-Disposition: form-data; name="${name}"`;
    if (filename !== null) head += `; filename="${filename}"`;
    head += '\r\n';
    if (type !== null) head += `Content-Type: ${type}\r\n`;
    parts.push(Buffer.from(`${head}\r\n`, 'utf8'), content, Buffer.from('\r\n'));
  };
  for (let i = 0; i < m.extraFields; i += 1) part(`field${i}`, null, null, Buffer.from(`value ${i}`));
  part(m.partName, m.filename ?? file.name, m.partType ?? file.type, bytes);
  if (sidecar) part('manifest', 'sidecar.c2pa', 'application/c2pa', sidecar.bytes);
  for (let i = 0; i < m.extraFiles; i += 1) part('file', `extra${i}.jpg`, 'image/jpeg', hostile ? ctx.files[0]!.bytes : file.bytes);
  if (m.closing) parts.push(Buffer.from(`--${b}--\r\n`));
  const summary = [
    hostile ? `multipart ${m.partName === 'file' ? '' : `part=${short(m.partName)} `}${hostile.summary}` : `multipart ${m.partName === 'file' ? '' : `part=${short(m.partName)} `}${file.name}:${m.fileBytes}${m.fileBytes === 'truncated' ? `@${bytes.length}` : ''}`,
    sidecar ? sidecar.summary : '',
    m.filename !== null ? `filename=${short(m.filename)}` : '',
    m.partType !== null ? `part-type=${short(m.partType)}` : '',
    m.extraFields ? `+${m.extraFields} fields` : '',
    m.extraFiles ? `+${m.extraFiles} files` : '',
    b !== 'FuzzBoundary7MA4YWxk' ? `boundary=${short(b)}` : '',
    m.closing ? '' : 'no closing boundary',
  ];
  return { body: Buffer.concat(parts), boundary: b, summary: summary.filter(Boolean).join(' ') };
}

/** Byte-level damage to a rendered body; `fixLength` says whether Content-Length follows the damage. */
type ByteMutation =
  | { kind: 'none' }
  | { kind: 'truncate'; at: number; fixLength: boolean }
  | { kind: 'flip'; positions: Array<{ at: number; byte: number }> }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'cut'; at: number; length: number };

const byteMutation: fc.Arbitrary<ByteMutation> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), fixLength: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('flip' as const), positions: fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), byte: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('insert' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cut' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), length: fc.integer({ min: 1, max: 200 }) }) },
);

function applyByteMutation(body: Buffer, m: ByteMutation): { body: Buffer; declaredLength: number; summary: string } {
  const pos = (f: number) => Math.min(body.length, Math.floor(body.length * f));
  switch (m.kind) {
    case 'none':
      return { body, declaredLength: body.length, summary: '' };
    case 'truncate': {
      const at = pos(m.at);
      return { body: body.subarray(0, at), declaredLength: m.fixLength ? at : body.length, summary: `body truncated at ${at}/${body.length}${m.fixLength ? '' : ' (Content-Length of the whole)'}` };
    }
    case 'flip': {
      const copy = Buffer.from(body);
      for (const p of m.positions) if (copy.length) copy[Math.min(copy.length - 1, pos(p.at))] = p.byte;
      return { body: copy, declaredLength: copy.length, summary: `${m.positions.length} bytes overwritten (${m.positions.map((p) => `@${pos(p.at)}=0x${p.byte.toString(16)}`).join(',')})` };
    }
    case 'insert': {
      const at = pos(m.at);
      const out = Buffer.concat([body.subarray(0, at), Buffer.from(m.bytes), body.subarray(at)]);
      return { body: out, declaredLength: out.length, summary: `${m.bytes.length} bytes inserted at ${at}` };
    }
    case 'cut': {
      const at = pos(m.at);
      const out = Buffer.concat([body.subarray(0, at), body.subarray(at + m.length)]);
      return { body: out, declaredLength: out.length, summary: `${body.length - out.length} bytes cut at ${at}` };
    }
  }
}

/** Header-level damage: framing, content type, credentials, sizes and plain junk. */
type HeaderMutation =
  | { kind: 'content-type'; value: string }
  | { kind: 'no-content-type' }
  | { kind: 'no-length' }
  | { kind: 'chunked'; broken: boolean }
  | { kind: 'length-and-chunked' }
  | { kind: 'double-length' }
  | { kind: 'length-junk'; value: string }
  | { kind: 'encoding'; value: string }
  | { kind: 'big-header'; size: number }
  | { kind: 'many-headers'; count: number }
  | { kind: 'junk-line'; line: string }
  | { kind: 'authorization'; value: string }
  | { kind: 'api-key'; value: string }
  | { kind: 'idempotency-key'; value: string }
  | { kind: 'forwarded-for'; value: string }
  | { kind: 'expect-continue' };

const headerJunk = fc.oneof(
  fc.constantFrom('', ' ', 'null', '\t', 'x'.repeat(9000), 'Bearer', 'Bearer ', 'Bearer a.b.c', 'Basic Zm9vOmJhcg==', 'é', '\u0001'),
  fc.string({ unit: 'binary-ascii', maxLength: 80 }),
);

const headerMutation: fc.Arbitrary<HeaderMutation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('content-type' as const), value: fc.oneof(fc.constantFrom('application/json', 'application/json; charset=utf-16', 'application/json; charset=bogus', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary=other', 'multipart/mixed; boundary=FuzzBoundary7MA4YWxk', 'image/jpeg', 'image/png', 'image/svg+xml', '*/*', ';;;', 'application/json; boundary=x'), fc.string({ unit: 'binary-ascii', maxLength: 40 })) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'no-content-type' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'no-length' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('chunked' as const), broken: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'length-and-chunked' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'double-length' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('length-junk' as const), value: fc.constantFrom('-1', 'abc', '1e3', '99999999999999999999', ' 5', '0x10', '') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('encoding' as const), value: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'bogus', 'gzip, gzip') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('big-header' as const), size: fc.integer({ min: 8_000, max: 40_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('many-headers' as const), count: fc.integer({ min: 50, max: 3000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('junk-line' as const), line: fc.oneof(fc.constantFrom('no colon here', ': empty name', 'X-Bad\u0000: nul', 'X-Sp ace: 1', 'X-Obs-Fold: a\r\n folded', ' leading-space: 1'), fc.string({ unit: 'binary-ascii', maxLength: 40 })) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('authorization' as const), value: headerJunk }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('api-key' as const), value: headerJunk }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('idempotency-key' as const), value: headerJunk }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forwarded-for' as const), value: headerJunk }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'expect-continue' as const }) },
);

/** How a path or query parameter is filled: validly (from the context or the schema) or with junk. */
type ParamValue = { kind: 'valid' } | { kind: 'encoded'; value: string } | { kind: 'raw'; value: string };

const paramValue: fc.Arbitrary<ParamValue> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'valid' as const }) },
  { weight: 1, arbitrary: fc.uuid().map((value) => ({ kind: 'encoded' as const, value })) },
  { weight: 2, arbitrary: nastyString.map((value) => ({ kind: 'encoded' as const, value })) },
  { weight: 2, arbitrary: fc.constantFrom('%00', '%ED%A0%80', '%zz', '%', '%2e%2e', '..', '%2F', 'a%00b', '-1', '0', '1e999', '99999999999999999999', 'true', '[]', 'x'.repeat(3000), '%C0%AE', '%FF').map((value) => ({ kind: 'raw' as const, value })) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 20 }).map((value) => ({ kind: 'raw' as const, value })) },
);

const transport: fc.Arbitrary<Transport> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ kind: 'full' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('end' as const), sendBytes: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('stall' as const), sendBytes: fc.nat(), stallMs: fc.integer({ min: 10, max: 400 }) }) },
);

export interface FuzzCase {
  op: number;
  auth: 'none' | 'jwt' | 'api-key' | 'both';
  body: 'declared' | 'none' | 'other';
  json: JsonMutation;
  multipart: MultipartChoice;
  bytes: ByteMutation;
  headers: HeaderMutation[];
  params: ParamValue[];
  extraQuery: Array<[string, string]>;
  transport: Transport;
  /** For a non-full transport: the fraction of the request sent before the socket ends or stalls. */
  sendFraction: number;
}

export function fuzzCase(operationCount: number): fc.Arbitrary<FuzzCase> {
  return fc.record({
    op: fc.integer({ min: 0, max: operationCount - 1 }),
    auth: fc.constantFrom('none' as const, 'jwt' as const, 'jwt' as const, 'api-key' as const, 'api-key' as const, 'both' as const),
    body: fc.oneof({ weight: 8, arbitrary: fc.constant('declared' as const) }, { weight: 1, arbitrary: fc.constant('none' as const) }, { weight: 1, arbitrary: fc.constant('other' as const) }),
    json: jsonMutation,
    multipart: multipartChoice,
    bytes: byteMutation,
    headers: fc.oneof({ weight: 3, arbitrary: fc.constant<HeaderMutation[]>([]) }, { weight: 2, arbitrary: fc.array(headerMutation, { minLength: 1, maxLength: 3 }) }),
    params: fc.array(paramValue, { minLength: 4, maxLength: 4 }),
    extraQuery: fc.oneof(
      { weight: 5, arbitrary: fc.constant<Array<[string, string]>>([]) },
      { weight: 1, arbitrary: fc.array(fc.tuple(fc.constantFrom('limit', 'cursor', 'wait', 'status', 'maxResults', 'alg', 'value', '__proto__[x]', 'a[b][c]', 'x'), fc.oneof(fc.constantFrom('1', '-1', '', '%00', 'a%zz', '1e309', 'x'.repeat(2000)), fc.string({ unit: 'binary-ascii', maxLength: 10 }))), { minLength: 1, maxLength: 4 }) },
    ),
    transport,
    sendFraction: fc.double({ min: 0, max: 1, noNaN: true }),
  });
}

/** Percent-encodes the UTF-8 of a string, lone surrogates included (as WTF-8 would not: they become U+FFFD). */
const encode = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');

/** A valid value of a path or query parameter: from the context when it names something real, else from its schema. */
function validParam(p: Parameter, ctx: FuzzContext): string {
  if (p.name in ctx.known) return ctx.known[p.name]!;
  const s = p.schema ?? {};
  if (p.name === 'wait') return '0';
  if (s.enum) return String(s.enum[0]);
  if (s.format === 'uuid') return randomUUID();
  if (s.type === 'integer') return String(s.default ?? s.minimum ?? 1);
  if (s.type === 'boolean') return 'true';
  if (s.example !== undefined) return String(s.example);
  return 'x';
}

function paramText(p: Parameter, v: ParamValue, ctx: FuzzContext): { text: string; summary: string } {
  if (v.kind === 'valid') return { text: encodeURIComponent(validParam(p, ctx)), summary: '' };
  if (v.kind === 'encoded') return { text: encode(v.value), summary: `${p.name}=${short(v.value)}` };
  return { text: v.value, summary: `${p.name}=raw ${short(v.value)}` };
}

/** The raw request of a case against `op`. */
export function buildRequest(doc: OpenApiDoc, op: Operation, c: FuzzCase, ctx: FuzzContext, requestId: string): FuzzRequest {
  const summary: string[] = [];
  const paramsWith = (where: Parameter['in']) => op.parameters.filter((p) => p.in === where);
  let pathText = op.path;
  paramsWith('path').forEach((p, i) => {
    const { text, summary: s } = paramText(p, c.params[i % c.params.length]!, ctx);
    pathText = pathText.replace(`{${p.name}}`, text);
    if (s) summary.push(`path ${s}`);
  });
  const query: string[] = [];
  paramsWith('query').forEach((p, i) => {
    const v = c.params[(i + 1) % c.params.length]!;
    // An optional parameter left at "valid" is sometimes left out, as most clients do.
    if (v.kind === 'valid' && !p.required && i % 2 === 1) return;
    const { text, summary: s } = paramText(p, v, ctx);
    query.push(`${p.name}=${text}`);
    if (s) summary.push(`query ${s}`);
  });
  for (const [k, v] of c.extraQuery) query.push(`${k}=${v}`);
  if (c.extraQuery.length) summary.push(`extra query ${short(c.extraQuery.map(([k, v]) => `${k}=${v}`).join('&'))}`);
  const target = query.length ? `${pathText}?${query.join('&')}` : pathText;

  const headers: HeaderLine[] = [
    ['Host', `127.0.0.1:${ctx.port}`],
    ['Connection', 'close'],
    ['X-Request-Id', requestId],
  ];
  if (c.auth === 'jwt' || c.auth === 'both') headers.push(['Authorization', `Bearer ${ctx.access}`]);
  if (c.auth === 'api-key' || c.auth === 'both') headers.push(['X-API-Key', ctx.apiKey]);
  summary.unshift(`auth=${c.auth}`);
  const idem = paramsWith('header').find((p) => p.name === 'Idempotency-Key');
  if (idem) headers.push(['Idempotency-Key', randomUUID()]);

  // The body the operation declares (JSON, multipart or a raw image), none, or one of another kind.
  let body: Buffer = Buffer.alloc(0);
  let contentType: string | undefined;
  // A route that takes the file as the body lists each media type it reads; all of them are one kind here, a raw file.
  const kinds = op.bodyTypes.length ? [...new Set(op.bodyTypes.map((t) => (/^(image|video|audio)\//.test(t) ? 'image/*' : t)))] : ['none'];
  const otherKind = ['application/json', 'multipart/form-data', 'image/*'].find((t) => !kinds.includes(t))!;
  const kind = c.body === 'none' ? 'none' : c.body === 'other' ? otherKind : kinds[c.multipart.fileIndex % kinds.length]!;
  if (kind === 'application/json') {
    const base = op.jsonSchema ? validJson(doc, op.jsonSchema, ctx) : { fuzz: true };
    const { text, summary: s } = applyJsonMutation(base, c.json);
    body = Buffer.from(text, 'utf8');
    contentType = 'application/json';
    summary.push(s);
  } else if (kind === 'multipart/form-data') {
    const m = renderMultipart(ctx, c.multipart);
    body = m.body;
    contentType = `multipart/form-data; boundary=${m.boundary}`;
    summary.push(m.summary);
  } else if (kind === 'image/*') {
    const file = ctx.files[c.multipart.fileIndex % ctx.files.length]!;
    body = file.bytes;
    contentType = file.type;
    summary.push(`raw ${file.name}`);
  } else {
    summary.push('no body');
  }

  const damaged = applyByteMutation(body, c.bytes);
  body = damaged.body;
  if (damaged.summary) summary.push(damaged.summary);
  let declaredLength: number | undefined = body.length || op.method === 'POST' || op.method === 'PUT' || op.method === 'PATCH' ? damaged.declaredLength : undefined;
  let complete = declaredLength === undefined || declaredLength <= body.length;
  let chunked: 'no' | 'ok' | 'broken' = 'no';
  // Framing the server may read more than one way: whatever answer comes is judged, but none is owed.
  let ambiguous = false;

  for (const h of c.headers) {
    switch (h.kind) {
      case 'content-type':
        contentType = h.value;
        summary.push(`Content-Type: ${short(h.value)}`);
        break;
      case 'no-content-type':
        contentType = undefined;
        summary.push('no Content-Type');
        break;
      case 'no-length':
        declaredLength = undefined;
        complete = true;
        summary.push('no Content-Length');
        break;
      case 'chunked':
        chunked = h.broken ? 'broken' : 'ok';
        declaredLength = undefined;
        complete = !h.broken;
        summary.push(h.broken ? 'chunked, broken chunk framing' : 'chunked');
        break;
      case 'length-and-chunked':
        headers.push(['Transfer-Encoding', 'chunked']);
        ambiguous = true;
        summary.push('Content-Length and Transfer-Encoding: chunked');
        break;
      case 'double-length':
        headers.push(['Content-Length', String(body.length + 7)]);
        ambiguous = true;
        summary.push('two Content-Length headers');
        break;
      case 'length-junk':
        headers.push(['Content-Length', h.value]);
        declaredLength = undefined;
        ambiguous = true;
        summary.push(`Content-Length: ${short(h.value)}`);
        break;
      case 'encoding':
        headers.push(['Content-Encoding', h.value]);
        summary.push(`Content-Encoding: ${h.value}`);
        break;
      case 'big-header':
        headers.push(['X-Fuzz-Padding', 'p'.repeat(h.size)]);
        summary.push(`a ${h.size}-byte header`);
        break;
      case 'many-headers':
        for (let i = 0; i < h.count; i += 1) headers.push([`X-Fuzz-${i}`, String(i)]);
        summary.push(`${h.count} extra headers`);
        break;
      case 'junk-line':
        headers.push(h.line);
        summary.push(`header line ${short(h.line)}`);
        break;
      case 'authorization':
        headers.push(['Authorization', h.value]);
        summary.push(`Authorization: ${short(h.value)}`);
        break;
      case 'api-key':
        headers.push(['X-API-Key', h.value]);
        summary.push(`X-API-Key: ${short(h.value)}`);
        break;
      case 'idempotency-key':
        headers.push(['Idempotency-Key', h.value]);
        summary.push(`Idempotency-Key: ${short(h.value)}`);
        break;
      case 'forwarded-for':
        headers.push(['X-Forwarded-For', h.value]);
        summary.push(`X-Forwarded-For: ${short(h.value)}`);
        break;
      case 'expect-continue':
        headers.push(['Expect', '100-continue']);
        summary.push('Expect: 100-continue');
        break;
    }
  }
  if (contentType !== undefined) headers.push(['Content-Type', contentType]);
  if (chunked !== 'no') {
    headers.push(['Transfer-Encoding', 'chunked']);
    const size = Math.max(1, Math.ceil(body.length / 3));
    const chunks: Buffer[] = [];
    for (let at = 0; at < body.length; at += size) {
      const piece = body.subarray(at, at + size);
      chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
    }
    if (chunked === 'broken') chunks.splice(1, 0, Buffer.from('zz\r\n'));
    else chunks.push(Buffer.from('0\r\n\r\n'));
    body = Buffer.concat(chunks);
  } else if (declaredLength !== undefined) {
    headers.push(['Content-Length', String(declaredLength)]);
  }

  if (ambiguous) complete = false;
  let t = c.transport;
  const head = renderHead(op.method, target, headers);
  const total = head.length + body.length;
  if (t.kind !== 'full') {
    const sendBytes = Math.floor(total * c.sendFraction);
    t = { ...t, sendBytes };
    summary.push(t.kind === 'end' ? `client ends after ${sendBytes}/${total} bytes` : `client stalls after ${sendBytes}/${total} bytes, drops after ${t.stallMs} ms`);
    complete = false;
  } else if (!complete) {
    // The body is shorter than its framing says: the server rightly waits for the rest; the client then gives up.
    t = { kind: 'stall', sendBytes: total, stallMs: 300 };
  }
  return { route: `${op.method} ${op.path}`, method: op.method, target, headers, body, transport: t, complete, summary };
}

function renderHead(method: string, target: string, headers: HeaderLine[]): Buffer {
  const lines = [`${method} ${target} HTTP/1.1`, ...headers.map((h) => (typeof h === 'string' ? h : `${h[0]}: ${h[1]}`))];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/** The bytes on the wire. Header values go out as latin1, as HTTP/1.1 has them; non-latin1 text is mangled on purpose. */
export function requestBytes(req: Pick<FuzzRequest, 'method' | 'target' | 'headers' | 'body'>): Buffer {
  return Buffer.concat([renderHead(req.method, req.target, req.headers), req.body]);
}
