import { defineZipDocument } from '../walks/zip-document.js';

export const odp = defineZipDocument({
  mimeType: 'application/vnd.oasis.opendocument.presentation',
  extensions: ['odp'],
  label: 'OpenDocument presentation',
  marker: { mimetype: 'application/vnd.oasis.opendocument.presentation' },
  required: ['content.xml'],
  title: { entry: 'meta.xml' },
});
