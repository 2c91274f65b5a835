import { defineZipDocument } from '../walks/zip-document.js';

export const odt = defineZipDocument({
  mimeType: 'application/vnd.oasis.opendocument.text',
  extensions: ['odt'],
  label: 'OpenDocument text',
  marker: { mimetype: 'application/vnd.oasis.opendocument.text' },
  required: ['content.xml'],
  title: { entry: 'meta.xml' },
});
