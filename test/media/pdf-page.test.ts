import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import sharp from 'sharp';
import { PAGE_LONG_EDGE, pdfFirstPagePng, PdfPageError } from '../../shared/media/pdf-page.js';
import { logDocumentThumbnails } from '../../workers/document-thumbnails.js';
import { tinyPdf } from './document-samples.js';

/** A PDF's first page rendered by pdftoppm (Debian's poppler-utils), and what the worker says at start about it. */
describe('media: PDF first page (pdftoppm)', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'pdf-page-'));
  const file = (name: string, bytes: Buffer | string) => {
    const at = path.join(dir, name);
    writeFileSync(at, bytes);
    return at;
  };
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('renders page 1 as a PNG fitting 1024 px, whatever size the page declares', async () => {
    const png = await pdfFirstPagePng(file('a.pdf', tinyPdf()), { pdftoppmPath: 'pdftoppm' });
    const meta = await sharp(png).metadata();
    expect([meta.format, Math.max(meta.width!, meta.height!)]).to.deep.equal(['png', PAGE_LONG_EDGE]);
    // A page declaring 14,400 points square (200 inches) is still rendered within the box.
    const huge = Buffer.from(tinyPdf().toString('latin1').replace('/MediaBox [0 0 612 792]', '/MediaBox [0 0 14400 14400]'), 'latin1');
    const big = await sharp(await pdfFirstPagePng(file('huge.pdf', huge), { pdftoppmPath: 'pdftoppm' })).metadata();
    expect([big.width, big.height]).to.deep.equal([PAGE_LONG_EDGE, PAGE_LONG_EDGE]);
  });

  it('fails with a reason for a file that is no PDF, and when pdftoppm is missing', async () => {
    const junk = await pdfFirstPagePng(file('junk.pdf', 'not a pdf'), { pdftoppmPath: 'pdftoppm' }).catch((e: unknown) => e);
    expect(junk).to.be.instanceOf(PdfPageError);
    expect((junk as Error).message).to.match(/^pdftoppm (could not render the first page|rendered no page)/);
    const missing = await pdfFirstPagePng(file('b.pdf', tinyPdf()), { pdftoppmPath: path.join(dir, 'nothing') }).catch((e: unknown) => e);
    expect((missing as Error).message).to.match(/pdftoppm was not found at .* \(PDFTOPPM_PATH\)/);
  });

  it('says at start whether PDFs get thumbnails: pdftoppm found, missing, or PDFTOPPM_PATH=off', async () => {
    const said = async (pdftoppmPath: string | undefined) => {
      const lines: string[] = [];
      const sink = new Writable({ write: (chunk: Buffer, _e, done) => { lines.push(chunk.toString('utf8')); done(); } });
      await logDocumentThumbnails(pdftoppmPath, pino({ level: 'info' }, sink));
      return lines.map((l) => JSON.parse(l) as { level: number; msg: string });
    };
    const [found] = await said('pdftoppm');
    expect(found!.msg).to.equal('PDF claim thumbnails: first pages rendered by pdftoppm');
    const [missing] = await said(path.join(dir, 'nothing'));
    expect([missing!.level, missing!.msg]).to.deep.equal([40, "pdftoppm cannot be run (PDFTOPPM_PATH): PDF documents are signed without claim thumbnails; install Debian's poppler-utils or set PDFTOPPM_PATH"]);
    const [off] = await said(undefined);
    expect(off!.msg).to.match(/^PDFTOPPM_PATH=off: PDF documents are signed without claim thumbnails/);
  });
});
