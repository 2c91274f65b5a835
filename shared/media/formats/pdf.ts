import { defineFormat } from '../format-descriptor.js';
import { pdfTitle } from '../walks/document-title.js';
import { checkPdf, isPdfHeader } from '../walks/pdf.js';

export const pdf = defineFormat({
  mimeType: 'application/pdf',
  extensions: ['pdf'],
  kind: 'document',
  label: 'PDF document',
  notes: '%PDF- header with a version, %%EOF at the end, startxref pointing at a cross-reference table or stream; c2pa-rs appends the manifest as an incremental update',
  *sniff(head) {
    return isPdfHeader(head);
  },
  check: checkPdf,
  title: pdfTitle,
  picture: 'first-page',
});
