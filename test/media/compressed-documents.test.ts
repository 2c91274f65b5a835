/**
 * Documents whose ZIP entries are deflated (as office suites and EPUB tools write them) are signed through the worker
 * as a copy with every entry stored: c2pa-rs reads the result Trusted and the entries are the originals; an entry that
 * inflates past what it declares, or whose data fails its CRC-32, is refused and leaves nothing behind.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { expect } from 'chai';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { runOnBytes } from '../../shared/media/byte-walk.js';
import { MediaRejectedError } from '../../shared/media/errors.js';
import { readZipDirectory } from '../../shared/media/walks/zip.js';
import { repackZipStored } from '../../shared/media/zip-repack.js';
import { processSignJob } from '../../workers/sign-job.js';
import type { SignJobDeps } from '../../workers/sign-job/deps.js';
import { downloadFile, submitSign, waitForJob, type Account, type TestApi } from '../support/api.js';
import { writeZip } from '../support/zip-writer.js';
import { epubEntries, tinyDocx, tinyOdf } from './document-samples.js';
import { withSigningCounter } from './signing-desk.js';

/** Info-ZIP's `zip -9` over the entries of `source` (a stored archive): the `mimetype` entry first and stored (`-0`), as EPUB and ODF tools write it. */
function zipNine(source: Buffer, work: string, name: string): Buffer {
  const tree = path.join(work, `${name}.d`);
  const out = path.join(work, name);
  mkdirSync(tree);
  writeFileSync(path.join(work, `${name}.src`), source);
  execFileSync('unzip', ['-q', path.join(work, `${name}.src`), '-d', tree]);
  const names = runOnBytes(readZipDirectory(source.length, 'archive'), source).entries.map((e) => e.name);
  const [first, ...rest] = names;
  if (first === 'mimetype') execFileSync('zip', ['-q', '-X', '-0', out, 'mimetype'], { cwd: tree });
  execFileSync('zip', ['-q', '-9', out, ...(first === 'mimetype' ? rest : names)], { cwd: tree });
  return readFileSync(out);
}

const entriesOf = (bytes: Buffer) => runOnBytes(readZipDirectory(bytes.length, 'archive'), bytes).entries;

describe('media: documents with deflated ZIP entries signed as an all-stored copy', function () {
  this.timeout(120_000);
  let api: TestApi;
  let acc: Account;
  let rootPem: string;
  let deps: SignJobDeps;
  let work: string;
  withSigningCounter('Compressed Documents Desk', (counter) => ({ api, acc, rootPem, deps, dir: work } = counter));

  const cases = [
    { label: 'DOCX', file: 'minutes.docx', mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', make: () => tinyDocx('Board minutes'), text: 'Minutes of the meeting' },
    { label: 'ODT', file: 'notes.odt', mime: 'application/vnd.oasis.opendocument.text', make: () => tinyOdf('application/vnd.oasis.opendocument.text', 'Field notes'), text: 'Field notes' },
    { label: 'EPUB', file: 'tale.epub', mime: 'application/epub+zip', make: () => writeZip(epubEntries()), text: 'best of times' },
  ] as const;

  for (const c of cases) {
    it(`a ${c.label} written by zip -9 signs Trusted, every entry stored and unchanged; a flipped content byte reads Invalid`, async () => {
      const original = zipNine(c.make(), work, c.file);
      const before = entriesOf(original);
      expect(before.filter((e) => e.method === 8).length, 'zip -9 deflated the entries').to.be.greaterThan(1);

      const jobId = await submitSign(api.app, acc, original, c.file, { title: c.label, creator: 'Desk' });
      await processSignJob(deps, jobId, { number: 1, final: true });
      const job = await waitForJob(api.app, acc, jobId);
      expect(job.status, JSON.stringify(job.error)).to.equal('signed');
      const signed = await downloadFile(api.app, acc, job.signed_file.download_url);

      const after = entriesOf(signed);
      expect(after.every((e) => e.method === 0)).to.equal(true);
      // Same entries in the same order (c2pa-rs adds its manifest entry, and a META-INF/ folder entry), the mimetype one first.
      expect(after.map((e) => e.name).filter((n) => n !== 'META-INF/content_credential.c2pa' && n !== 'META-INF/')).to.deep.equal(before.map((e) => e.name));
      expect(after.find((e) => e.name === 'META-INF/content_credential.c2pa')).to.not.equal(undefined);
      // Info-ZIP's own test reads every entry and checks its CRC; the entries' contents are the originals'.
      const signedPath = path.join(work, `signed-${c.file}`);
      await writeFile(signedPath, signed);
      execFileSync('unzip', ['-tq', signedPath]);
      const unpacked = path.join(work, `signed-${c.file}.d`);
      execFileSync('unzip', ['-q', signedPath, '-d', unpacked]);
      for (const entry of before) {
        expect(readFileSync(path.join(unpacked, entry.name)).equals(readFileSync(path.join(work, `${c.file}.d`, entry.name))), entry.name).to.equal(true);
      }

      const report = await readAsset(signed, c.mime as SignableMimeType, { trustAnchorsPem: rootPem });
      expect(report.validation_state, JSON.stringify(report.status.failure)).to.equal('Trusted');
      expect(report.manifest?.title).to.equal(c.label);

      const tampered = Buffer.from(signed);
      const at = tampered.indexOf(c.text);
      expect(at).to.be.greaterThan(0);
      tampered[at] = tampered[at]! ^ 0x20;
      const bad = await readAsset(tampered, c.mime as SignableMimeType, { trustAnchorsPem: rootPem });
      expect(bad.validation_state).to.equal('Invalid');
    });
  }

  it('refuses an entry whose data inflates past its declared size (422 media_too_complex), leaving no file behind', async () => {
    // 64 KiB of deflate data expanding to 64 MiB, declared as 1,000 bytes: the header bounds pass, the data lies.
    const bomb = writeZip([...epubEntries({ cover: false }), { name: 'OEBPS/zeros.bin', data: deflateRawSync(Buffer.alloc(64 * 1024 * 1024)), deflate: false, declaredSize: 1000 }]);
    // The writer stores the deflate data as it is given: mark the entry deflated, as a bomb's author would.
    const lying = markDeflated(bomb, 'OEBPS/zeros.bin');
    const jobId = await submitSign(api.app, acc, lying, 'bomb.epub', { title: 'Bomb', creator: 'Desk' });
    const thrown = await processSignJob(deps, jobId, { number: 1, final: true }).then(() => undefined, (e: unknown) => e);
    expect(thrown).to.be.instanceOf(MediaRejectedError);
    const job = await waitForJob(api.app, acc, jobId);
    expect(job.status).to.equal('failed');
    expect(job.error.code).to.equal('media_too_complex');
    expect(job.error.message).to.match(/entry "OEBPS\/zeros\.bin" inflates past the 1000 bytes it declares/);
    expect(await api.db.knex('signed_files').where({ job_id: jobId }).first()).to.equal(undefined);
    expect(existsSync(deps.tempDir!) ? readdirSync(deps.tempDir!) : []).to.deep.equal([]);
  });

  it('refuses an entry whose data fails its CRC-32 (400 corrupt_media) and removes the partial copy', async () => {
    const good = zipNine(tinyDocx('Checked'), work, 'crc.docx');
    const damaged = Buffer.from(good);
    const crcAt = damaged.indexOf(Buffer.from('word/document.xml')) - 30 + 14;
    damaged.writeUInt32LE((damaged.readUInt32LE(crcAt) ^ 1) >>> 0, crcAt);
    const central = damaged.lastIndexOf(Buffer.from('word/document.xml')) - 46 + 16;
    damaged.writeUInt32LE((damaged.readUInt32LE(central) ^ 1) >>> 0, central);
    const source = path.join(work, 'crc-source.docx');
    const output = path.join(work, 'crc-stored.docx');
    await writeFile(source, damaged);
    const err = await repackZipStored(source, output, 'Word document').then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(MediaRejectedError);
    expect([(err as MediaRejectedError).code, (err as Error).message]).to.deep.equal(['corrupt_media', 'the Word document\'s entry "word/document.xml" does not match its CRC-32 (damaged?)']);
    expect(existsSync(output)).to.equal(false);
  });

  it('writes nothing for a container whose entries are all stored already', async () => {
    const source = path.join(work, 'stored.docx');
    const output = path.join(work, 'stored-copy.docx');
    await writeFile(source, tinyDocx());
    expect(await repackZipStored(source, output, 'Word document')).to.equal(false);
    expect(existsSync(output)).to.equal(false);
    expect((await readFile(source)).equals(tinyDocx())).to.equal(true);
  });
});

/** Sets the compression method of entry `name` to deflate in its local and central headers. */
function markDeflated(zip: Buffer, name: string): Buffer {
  const out = Buffer.from(zip);
  const bytes = Buffer.from(name);
  const local = out.indexOf(bytes) - 30;
  out.writeUInt16LE(8, local + 8);
  const central = out.lastIndexOf(bytes) - 46;
  out.writeUInt16LE(8, central + 10);
  return out;
}
