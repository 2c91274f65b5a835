import { defineZipDocument } from '../walks/zip-document.js';

export const ods = defineZipDocument({
  mimeType: 'application/vnd.oasis.opendocument.spreadsheet',
  extensions: ['ods'],
  label: 'OpenDocument spreadsheet',
  marker: { mimetype: 'application/vnd.oasis.opendocument.spreadsheet' },
  required: ['content.xml'],
  title: { entry: 'meta.xml' },
});
