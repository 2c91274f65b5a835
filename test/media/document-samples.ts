import { writeZip, type ZipEntry } from '../support/zip-writer.js';

/**
 * Documents made when the tests run (no binary fixtures): a PDF written object by object with its cross-reference
 * table, and the ZIP containers (EPUB, DOCX, XLSX, PPTX, ODT, ODS, ODP, ODG, OXPS) with the entries their readers look
 * for, through test/support/zip-writer.ts.
 */

/** A one-page PDF 1.7 with a title in its document information dictionary, offsets in its xref table exact. */
export function tinyPdf(options: { title?: string; text?: string } = {}): Buffer {
  const text = options.text ?? 'Quarterly report';
  const content = `BT /F1 24 Tf 72 720 Td (${text}) Tj ET\n0.2 0.4 0.7 rg 72 600 200 80 re f\n`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}endstream`,
    `<< /Title (${options.title ?? 'Annual Report 2026'}) /Producer (test) >>`,
  ];
  let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const at of offsets) out += `${String(at).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A 4x6 PNG (the EPUB's cover image), decodable: its claim thumbnail is made of it. */
export const COVER_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000040000000608020000006b5ba8220000000970485973000003e8000003e801b57b526b000000104944415408996338a1a101470c9472000f4a1a41b0b8b93e0000000049454e44ae426082',
  'hex',
);

export function epubEntries(options: { title?: string; cover?: boolean } = {}): ZipEntry[] {
  const title = options.title ?? 'A Tale of Two Cities';
  const cover = options.cover ?? true;
  return [
    { name: 'mimetype', data: 'application/epub+zip' },
    {
      name: 'META-INF/container.xml',
      data: '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>'
    },
    {
      name: 'OEBPS/content.opf',
      data: `<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="uid">urn:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427</dc:identifier><dc:title>${title}</dc:title><dc:language>en</dc:language><meta property="dcterms:modified">2026-01-01T00:00:00Z</meta>${cover ? '<meta name="cover" content="cover-image"/>' : ''}</metadata><manifest><item id="ch1" href="ch1.xhtml" media-type="application/xhtml+xml"/>${cover ? '<item id="cover-image" href="images/cover.png" media-type="image/png" properties="cover-image"/>' : ''}</manifest><spine><itemref idref="ch1"/></spine></package>`
    },
    { name: 'OEBPS/ch1.xhtml', data: '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title></head><body><p>It was the best of times.</p></body></html>' },
    ...(cover ? [{ name: 'OEBPS/images/cover.png', data: COVER_PNG }] : []),
  ];
}

/** Entries stored unless `deflate` (c2pa-rs's WASM build signs only stored entries). */
export const tinyEpub = (options: { title?: string; cover?: boolean; deflate?: boolean } = {}) => writeZip(epubEntries(options), options);

const CORE = (title: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${title}</dc:title><dc:creator>Ada</dc:creator></cp:coreProperties>`;

/** An Office Open XML package whose main part is `main` (content type `mainType`). */
function ooxml(main: string, mainType: string, mainXml: string, title: string, deflate = false): Buffer {
  return writeZip(
    [
    {
      name: '[Content_Types].xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/${main}" ContentType="${mainType}"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${main}"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`
    },
    { name: main, data: mainXml },
    { name: 'docProps/core.xml', data: CORE(title) },
    ],
    { deflate },
  );
}

export const tinyDocx = (title = 'Board minutes', deflate = false) =>
  ooxml(
    'word/document.xml',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
    '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Minutes of the meeting.</w:t></w:r></w:p></w:body></w:document>',
    title,
    deflate,
  );

export const tinyXlsx = (title = 'Budget', deflate = false) =>
  ooxml(
    'xl/workbook.xml',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
    '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets/></workbook>',
    title,
    deflate,
  );

export const tinyPptx = (title = 'Launch deck', deflate = false) =>
  ooxml(
    'ppt/presentation.xml',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml',
    '<?xml version="1.0" encoding="UTF-8"?><p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"/>',
    title,
    deflate,
  );

/** An OpenDocument package of media type `mimeType` (the `mimetype` entry first, stored, as ODF requires). */
export function tinyOdf(mimeType: string, title = 'Field notes', deflate = false): Buffer {
  return writeZip(
    [
    { name: 'mimetype', data: mimeType },
    {
      name: 'META-INF/manifest.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:media-type="${mimeType}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>`
    },
    { name: 'content.xml', data: '<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" office:version="1.3"><office:body/></office:document-content>' },
    { name: 'meta.xml', data: `<?xml version="1.0" encoding="UTF-8"?><office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.3"><office:meta><dc:title>${title}</dc:title></office:meta></office:document-meta>` },
    ],
    { deflate },
  );
}
