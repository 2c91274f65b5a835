import { defineZipDocument } from '../walks/zip-document.js';

export const odg = defineZipDocument({
  mimeType: 'application/vnd.oasis.opendocument.graphics',
  extensions: ['odg'],
  label: 'OpenDocument drawing',
  marker: { mimetype: 'application/vnd.oasis.opendocument.graphics' },
  required: ['content.xml'],
  title: { entry: 'meta.xml' },
});
