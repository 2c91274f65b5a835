import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { documentTitle } from '../../shared/media/document-title.js';
import { epubEntries, tinyDocx, tinyEpub, tinyOdf, tinyPdf, tinyPptx, tinyXlsx } from './document-samples.js';
import { writeZip } from '../support/zip-writer.js';

/** A document's own title, read from its metadata with bounded reads, whatever the file holds. */
describe('media: document titles', function () {
  this.timeout(30_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'doc-title-'));
  let n = 0;
  const titleOf = (bytes: Buffer | string, mimeType: string) => {
    const file = path.join(dir, `f${(n += 1)}`);
    writeFileSync(file, bytes);
    return documentTitle(file, mimeType);
  };
  after(() => rmSync(dir, { recursive: true, force: true }));

  const PDF = 'application/pdf';
  const EPUB = 'application/epub+zip';
  const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
  const ODT = 'application/vnd.oasis.opendocument.text';
  /** tinyPdf with its Info dictionary's title written as `raw` (a PDF string object as a writer would put it). */
  const pdfWithTitle = (raw: string) => Buffer.from(tinyPdf().toString('latin1').replace('/Title (Annual Report 2026)', `/Title ${raw}`), 'latin1');

  it('reads each format: PDF Info /Title, EPUB OPF, OOXML core.xml, ODF meta.xml, stored or deflated', async () => {
    expect(await titleOf(tinyPdf(), PDF)).to.equal('Annual Report 2026');
    expect(await titleOf(tinyEpub(), EPUB)).to.equal('A Tale of Two Cities');
    expect(await titleOf(tinyEpub({ deflate: true }), EPUB)).to.equal('A Tale of Two Cities');
    expect(await titleOf(tinyDocx(), DOCX)).to.equal('Board minutes');
    expect(await titleOf(tinyDocx('Minutes &amp; <![CDATA[notes]]> &#233;t&#xE9;', true), DOCX)).to.equal('Minutes & notes été');
    expect(await titleOf(tinyXlsx(), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')).to.equal('Budget');
    expect(await titleOf(tinyPptx(), 'application/vnd.openxmlformats-officedocument.presentationml.presentation')).to.equal('Launch deck');
    expect(await titleOf(tinyOdf(ODT, 'Field notes', true), ODT)).to.equal('Field notes');
    expect(await titleOf(tinyOdf('application/vnd.oasis.opendocument.graphics'), 'application/vnd.oasis.opendocument.graphics')).to.equal('Field notes');
  });

  it('decodes PDF strings: escapes, balanced parentheses, UTF-16BE hex, PDFDocEncoding', async () => {
    expect(await titleOf(pdfWithTitle('(R\\(e\\)port \\(draft\\) \\351t\\351 (v2))'), PDF)).to.equal('R(e)port (draft) été (v2)');
    const utf16 = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('Rapport – Δ', 'utf16le').swap16()]).toString('hex');
    expect(await titleOf(pdfWithTitle(`<${utf16}>`), PDF)).to.equal('Rapport – Δ');
    expect(await titleOf(pdfWithTitle('(Quote \\215x\\216 \\223)'), PDF)).to.equal('Quote “x” ﬁ');
  });

  it('takes the latest incremental update, and XMP dc:title (x-default) when the Info dictionary has none', async () => {
    const base = tinyPdf().toString('latin1');
    const update = `6 0 obj\n<< /Title (Revised) >>\nendobj\ntrailer\n<< /Size 7 /Root 1 0 R /Info 6 0 R /Prev 0 >>\nstartxref\n0\n%%EOF\n`;
    expect(await titleOf(Buffer.from(base + update, 'latin1'), PDF)).to.equal('Revised');
    const xmp = '7 0 obj\n<< /Type /Metadata /Subtype /XML >>\nstream\n<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description><dc:title><rdf:Alt><rdf:li xml:lang="fr">Rapport</rdf:li><rdf:li xml:lang="x-default">Report</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>\nendstream\nendobj\n';
    const noInfo = Buffer.from(base.replace('/Title (Annual Report 2026) ', '').replace('%%EOF\n', `%%EOF\n${xmp}`), 'latin1');
    expect(await titleOf(noInfo, PDF)).to.equal('Report');
  });

  it('gives none for an encrypted PDF, no metadata, an empty title, images, and files that are not what they say', async () => {
    expect(await titleOf(Buffer.from(tinyPdf().toString('latin1').replace('/Info 6 0 R', '/Info 6 0 R /Encrypt 9 0 R'), 'latin1'), PDF)).to.equal(undefined);
    expect(await titleOf(pdfWithTitle('()'), PDF)).to.equal(undefined);
    expect(await titleOf(tinyPdf().toString('latin1').replace(' /Info 6 0 R', ''), PDF)).to.equal(undefined);
    expect(await titleOf(writeZip(epubEntries().filter((e) => e.name !== 'OEBPS/content.opf')), EPUB)).to.equal(undefined);
    expect(await titleOf(tinyPdf(), 'image/png')).to.equal(undefined);
    expect(await titleOf('not a zip at all', DOCX)).to.equal(undefined);
    expect(await titleOf('%PDF-1.7 cut', PDF)).to.equal(undefined);
  });

  it('cleans control characters and line breaks, and cuts a long title to 256 characters', async () => {
    expect(await titleOf(tinyDocx('  One\r\n\ttwo&#7;three  '), DOCX)).to.equal('One two three');
    expect([...(await titleOf(tinyDocx('é'.repeat(5000)), DOCX))!]).to.have.length(256);
  });

  it('reads no entry past 1 MiB: an oversized or bomb-like metadata entry gives no title, without inflating it', async () => {
    const big = writeZip([{ name: '[Content_Types].xml', data: '<Types/>' }, { name: 'word/document.xml', data: '<w/>' }, { name: 'docProps/core.xml', data: `<dc:title>${'x'.repeat(2 * 1024 * 1024)}</dc:title>`, deflate: true }]);
    expect(await titleOf(big, DOCX)).to.equal(undefined);
    // Declares 100 bytes, inflates to 2 MiB: zlib's output cap stops it at 1 MiB.
    const lying = writeZip([{ name: 'mimetype', data: ODT }, { name: 'meta.xml', data: `<dc:title>T</dc:title>${' '.repeat(2 * 1024 * 1024)}`, deflate: true, declaredSize: 100 }]);
    expect(await titleOf(lying, ODT)).to.equal(undefined);
  });
});
