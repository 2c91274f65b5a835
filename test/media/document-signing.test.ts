/**
 * What a document's manifest says when it is signed through the API and the worker: its title (the request's, else
 * the document's own, else the file name).
 */
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { processSignJob } from '../../workers/sign-job.js';
import type { SignJobDeps } from '../../workers/sign-job/deps.js';
import { bearer, downloadFile, waitForJob, type Account, type TestApi } from '../support/api.js';
import { tinyDocx, tinyEpub, tinyPdf } from './document-samples.js';
import { noisePng } from '../support/noise-png.js';
import { withSigningCounter } from './signing-desk.js';

describe('media: documents signed through the API', function () {
  this.timeout(120_000);
  let api: TestApi;
  let acc: Account;
  let rootPem: string;
  let deps: SignJobDeps;
  let work: string;
  withSigningCounter('Document Desk', (counter) => ({ api, acc, rootPem, deps, dir: work } = counter));

  const upload = async (bytes: Buffer, filename: string) => (await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', bytes, filename).expect(201)).body;
  const sign = (body: Record<string, unknown>) => request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send(body);
  /** Signs through the worker; the signed file's report under the service root. */
  const signed = async (jobId: string, mime: string) => {
    await processSignJob(deps, jobId, { number: 1, final: true });
    const job = await waitForJob(api.app, acc, jobId);
    expect(job.status, JSON.stringify(job.error)).to.equal('signed');
    const bytes = await downloadFile(api.app, acc, job.signed_file.download_url);
    const report = await readAsset(bytes, mime as SignableMimeType, { trustAnchorsPem: rootPem });
    expect(report.validation_state, JSON.stringify(report.status.failure)).to.equal('Trusted');
    return { job, bytes, report };
  };

  describe('the title', () => {
    it("is the request's when given, else the document's own (PDF Info, EPUB package), shown on the upload and the job", async () => {
      const pdf = await upload(tinyPdf(), 'report.pdf');
      expect(pdf.document_title).to.equal('Annual Report 2026');
      const untitled = await sign({ upload_id: pdf.upload_id, manifest: { creator: 'Desk' } }).expect(202);
      expect(untitled.body.manifest.title).to.equal('Annual Report 2026');
      expect((await signed(untitled.body.job_id, 'application/pdf')).report.manifest?.title).to.equal('Annual Report 2026');

      const epub = await upload(tinyEpub(), 'tale.epub');
      const titled = await sign({ upload_id: epub.upload_id, manifest: { title: 'Given title', creator: 'Desk' } }).expect(202);
      expect((await signed(titled.body.job_id, 'application/epub+zip')).report.manifest?.title).to.equal('Given title');
      const own = await sign({ upload_id: epub.upload_id, manifest: { creator: 'Desk' } }).expect(202);
      expect((await signed(own.body.job_id, 'application/epub+zip')).report.manifest?.title).to.equal('A Tale of Two Cities');
    });

    it('is the file name when the document gives none; an image must be given one (400)', async () => {
      const docx = await upload(tinyDocx(' '), 'minutes-final.docx');
      expect(docx.document_title).to.equal(null);
      const job = await sign({ upload_id: docx.upload_id, manifest: { creator: 'Desk' } }).expect(202);
      expect(job.body.manifest.title).to.equal('minutes-final.docx');

      const png = await upload(noisePng(8, 8), 'dot.png');
      expect(png.document_title).to.equal(null);
      const refused = await sign({ upload_id: png.upload_id, manifest: { creator: 'Desk' } }).expect(400);
      expect(refused.body.error).to.deep.equal({ code: 'validation_error', message: 'manifest.title: is required' });
    });
  });

  describe('the soft binding', () => {
    it('is none for a document (soft_binding false), whatever the request or template asks; an image follows the choices', async () => {
      const pdf = await upload(tinyPdf(), 'report.pdf');
      const asked = await sign({ upload_id: pdf.upload_id, soft_binding: true, manifest: { creator: 'Desk' } }).set('Idempotency-Key', 'doc-soft-1').expect(202);
      expect(asked.body.soft_binding).to.equal(false);
      // The same request again is the same job, not a conflict over the choice it could not have.
      const again = await sign({ upload_id: pdf.upload_id, soft_binding: true, manifest: { creator: 'Desk' } }).set('Idempotency-Key', 'doc-soft-1').expect(202);
      expect(again.body.job_id).to.equal(asked.body.job_id);
      const template = (await request(api.app).post('/v1/manifest-templates').set(bearer(acc.access)).send({ name: 'Fingerprinted', soft_binding: true, manifest: { creator: 'Desk' } }).expect(201)).body;
      const viaTemplate = await sign({ upload_id: pdf.upload_id, template_id: template.template_id, manifest: {} }).expect(202);
      expect(viaTemplate.body.soft_binding).to.equal(false);
      const { job, report } = await signed(asked.body.job_id, 'application/pdf');
      expect(job.soft_binding).to.equal(false);
      expect(report.manifest?.assertions).to.not.include('c2pa.soft-binding');

      const png = await upload(noisePng(8, 8), 'dot.png');
      expect((await sign({ upload_id: png.upload_id, manifest: { title: 'Dot', creator: 'Desk' } }).expect(202)).body.soft_binding).to.equal(null);
      expect((await sign({ upload_id: png.upload_id, soft_binding: false, manifest: { title: 'Dot', creator: 'Desk' } }).expect(202)).body.soft_binding).to.equal(false);
      expect((await sign({ upload_id: png.upload_id, template_id: template.template_id, manifest: { title: 'Dot' } }).expect(202)).body.soft_binding).to.equal(true);
    });
  });

  describe('the claim thumbnail', () => {
    const withThumbnail = async (bytes: Buffer, filename: string, mime: string) => {
      const up = await upload(bytes, filename);
      const job = await sign({ upload_id: up.upload_id, manifest: { creator: 'Desk', thumbnail: true } }).expect(202);
      return (await signed(job.body.job_id, mime)).report.manifest?.thumbnail ?? null;
    };

    it("of a PDF is its first page rendered by pdftoppm; of an EPUB its cover image", async () => {
      expect(await withThumbnail(tinyPdf(), 'report.pdf', 'application/pdf')).to.deep.equal({ format: 'image/jpeg' });
      expect(await withThumbnail(tinyEpub(), 'tale.epub', 'application/epub+zip')).to.deep.equal({ format: 'image/jpeg' });
      expect(await withThumbnail(tinyEpub({ deflate: true }), 'tale-deflated.epub', 'application/epub+zip')).to.deep.equal({ format: 'image/jpeg' });
    });

    it('is left out, the file still signed, for an EPUB without a cover, Office and OpenDocument files, and PDFs without pdftoppm', async () => {
      expect(await withThumbnail(tinyEpub({ cover: false }), 'plain.epub', 'application/epub+zip')).to.equal(null);
      expect(await withThumbnail(tinyDocx(), 'minutes.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document')).to.equal(null);
      const saved = deps.pdftoppmPath;
      try {
        deps.pdftoppmPath = undefined;
        expect(await withThumbnail(tinyPdf(), 'no-renderer.pdf', 'application/pdf')).to.equal(null);
        deps.pdftoppmPath = path.join(work, 'no-such-pdftoppm');
        expect(await withThumbnail(tinyPdf(), 'missing-renderer.pdf', 'application/pdf')).to.equal(null);
      } finally {
        deps.pdftoppmPath = saved;
      }
    });
  });
});
