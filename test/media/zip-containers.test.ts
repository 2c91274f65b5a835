/**
 * ZIP containers told apart and bounded from their headers: EPUB, Office Open XML and OpenDocument by their markers, a
 * plain ZIP refused, and hostile archives (bombs, path traversal, duplicate and overlapping entries, too many entries)
 * refused from the central directory before anything is decompressed.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { expect } from 'chai';
import { HTTP_STATUS } from '../../api/errors.js';
import { identifyMedia, identifyMediaBytes, MediaRejectedError } from '../../shared/media/formats.js';
import { MAX_ZIP_ENTRIES } from '../../shared/media/walks/zip.js';
import { writeZip, type ZipEntry } from '../support/zip-writer.js';
import { epubEntries, tinyDocx, tinyEpub, tinyOdf, tinyPdf, tinyPptx, tinyXlsx } from './document-samples.js';

function refusal(bytes: Uint8Array, checkStructure = true): MediaRejectedError {
  try {
    identifyMediaBytes(bytes, { checkStructure });
  } catch (err) {
    if (err instanceof MediaRejectedError) return err;
    throw err;
  }
  throw new Error('accepted');
}

describe('media: ZIP containers (EPUB, Office, OpenDocument) and their bounds', function () {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'zip-containers-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('tells EPUB, DOCX, XLSX, PPTX and the OpenDocument types apart by content, deflated entries included', function () {
    const cases: [Buffer, string][] = [
      [tinyEpub({ deflate: true }), 'application/epub+zip'],
      [tinyDocx('t', true), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      [tinyXlsx('t', true), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      [tinyPptx('t', true), 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
      [tinyOdf('application/vnd.oasis.opendocument.text', 't', true), 'application/vnd.oasis.opendocument.text'],
      [tinyOdf('application/vnd.oasis.opendocument.graphics', 't', true), 'application/vnd.oasis.opendocument.graphics'],
    ];
    for (const [bytes, mimeType] of cases) expect(identifyMediaBytes(bytes, { checkStructure: false }).mimeType).to.equal(mimeType);
  });

  it('takes a deflated container for signing; refuses an encrypted entry or another compression method (415) naming the entry', function () {
    expect(identifyMediaBytes(tinyDocx('t', true)).label).to.equal('Word document');
    /** tinyDocx with word/document.xml's header field at `offset` (local header; central header + 2) set to `value`. */
    const patched = (offset: number, value: number) => {
      const out = tinyDocx('t');
      out.writeUInt16LE(value, out.indexOf('word/document.xml') - 30 + offset);
      out.writeUInt16LE(value, out.lastIndexOf('word/document.xml') - 46 + offset + 2);
      return out;
    };
    const bzip2 = refusal(patched(8, 12));
    expect([bzip2.reason, HTTP_STATUS[bzip2.kind]]).to.deep.equal(['unsupported', 415]);
    expect(bzip2.message).to.equal('the Word document\'s entry "word/document.xml" is compressed with method 12 (only stored and deflated entries are read)');
    const encrypted = refusal(patched(6, 0x0801));
    expect([encrypted.reason, encrypted.message]).to.deep.equal(['unsupported', 'the Word document\'s entry "word/document.xml" is encrypted']);
  });

  it('refuses a plain ZIP, a container of another type and an OOXML package of no known main part (415), naming what it is', function () {
    const plain = refusal(writeZip([{ name: 'readme.txt', data: 'hello' }]));
    expect(plain.reason).to.equal('unsupported');
    expect(plain.message).to.match(/plain ZIP archive/);
    const formula = refusal(tinyOdf('application/vnd.oasis.opendocument.formula'));
    expect(formula.message).to.include('application/vnd.oasis.opendocument.formula');
    const visio = refusal(writeZip([{ name: '[Content_Types].xml', data: '<Types/>' }, { name: 'visio/document.xml', data: '<x/>' }]));
    expect(visio.reason).to.equal('unsupported');
    expect(HTTP_STATUS[visio.kind]).to.equal(415);
  });

  it('refuses a PDF cut short or without its trailer with the reason; a PDF that is whole passes', function () {
    const pdf = tinyPdf();
    expect(identifyMediaBytes(pdf).mimeType).to.equal('application/pdf');
    const cut = refusal(pdf.subarray(0, pdf.length - 40));
    expect([cut.reason, cut.mimeType]).to.deep.equal(['corrupt', 'application/pdf']);
    expect(cut.message).to.match(/%%EOF|startxref/);
    const noVersion = refusal(Buffer.from(pdf.toString('latin1').replace('%PDF-1.7', '%PDF-x.y'), 'latin1'));
    expect(noVersion.message).to.match(/no version/);
  });

  it('refuses a ZIP bomb (an entry declaring more than 1 GiB) from its header, 413, with nothing decompressed', function () {
    const bomb = writeZip([...epubEntries(), { name: 'OEBPS/zeros.bin', data: deflateRawSync(Buffer.alloc(1024)), declaredSize: 0xfffffff0 }]);
    expect(bomb.length).to.be.below(8 * 1024);
    for (const checkStructure of [true, false]) {
      const err = refusal(bomb, checkStructure);
      expect([err.reason, HTTP_STATUS[err.kind]]).to.deep.equal(['too_large', 413]);
      expect(err.message).to.match(/ZIP bomb\?.*nothing was decompressed/);
    }
  });

  it('refuses the overlapping-entries bomb (every entry pointing at the same data), 422, from a file of a few KB', async function () {
    const body = deflateRawSync(Buffer.alloc(4 * 1024 * 1024));
    const entries: ZipEntry[] = [...epubEntries({ cover: false }), ...Array.from({ length: 100 }, (_, i) => ({ name: `OEBPS/z${i}.bin`, data: i === 0 ? body : Buffer.alloc(0), localOffset: 0 }))];
    const bomb = writeZip(entries);
    const p = path.join(dir, 'overlap.epub');
    await writeFile(p, bomb);
    const err = await identifyMedia(p).then(() => undefined, (e: unknown) => e as MediaRejectedError);
    expect([err?.reason, err && HTTP_STATUS[err.kind]]).to.deep.equal(['too_complex', 422]);
    expect(err?.message).to.match(/overlap/);
  });

  for (const [name, why] of [
    ['../../etc/passwd', /"\.\." step/],
    ['OEBPS/../../evil.xhtml', /"\.\." step/],
    ['/etc/cron.d/x', /absolute path/],
    ['C:/Windows/x.dll', /absolute path/],
    ['OEBPS\\..\\evil', /backslash/],
  ] as const) {
    it(`refuses a path-traversal EPUB (an entry named ${JSON.stringify(name)}), 422, with or without the structure check`, function () {
      const hostile = writeZip([...epubEntries(), { name, data: 'x' }]);
      for (const checkStructure of [true, false]) {
        const err = refusal(hostile, checkStructure);
        expect([err.reason, HTTP_STATUS[err.kind], err.mimeType]).to.deep.equal(['too_complex', 422, 'application/epub+zip']);
        expect(err.message).to.match(why);
      }
    });
  }

  it('refuses duplicate entry names and more entries than MAX_ZIP_ENTRIES, 422, the count read before the directory', function () {
    const twice = refusal(writeZip([...epubEntries(), { name: 'OEBPS/ch1.xhtml', data: 'again' }]));
    expect(twice.message).to.match(/two entries named/);
    const many = writeZip([...epubEntries({ cover: false }), ...Array.from({ length: MAX_ZIP_ENTRIES }, (_, i) => ({ name: `f/${i}`, data: '' }))]);
    const err = refusal(many, false);
    expect([err.reason, HTTP_STATUS[err.kind]]).to.deep.equal(['too_complex', 422]);
    expect(err.message).to.match(/entries, more than the 10,000/);
  });

  it('refuses a ZIP cut before its central directory as corrupt, naming the format', function () {
    const epub = tinyEpub();
    const err = refusal(epub.subarray(0, epub.length - 30));
    expect([err.reason, err.mimeType]).to.deep.equal(['corrupt', 'application/epub+zip']);
    expect(err.message).to.match(/cut short/);
  });
});
