import { defineZipDocument } from '../walks/zip-document.js';

export const docx = defineZipDocument({
  mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  extensions: ['docx'],
  label: 'Word document',
  marker: { mainPart: 'word/document.xml' },
  required: ['[Content_Types].xml', 'word/document.xml'],
  title: { entry: 'docProps/core.xml' },
});
