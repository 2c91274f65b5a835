import { epubCover } from '../walks/epub-cover.js';
import { defineZipDocument } from '../walks/zip-document.js';

export const epub = defineZipDocument({
  mimeType: 'application/epub+zip',
  extensions: ['epub'],
  label: 'EPUB e-book',
  marker: { mimetype: 'application/epub+zip' },
  required: ['META-INF/container.xml'],
  title: 'epub-package',
  cover: epubCover,
});
