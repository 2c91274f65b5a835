import { defineZipDocument } from '../walks/zip-document.js';

export const pptx = defineZipDocument({
  mimeType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  extensions: ['pptx'],
  label: 'PowerPoint presentation',
  marker: { mainPart: 'ppt/presentation.xml' },
  required: ['[Content_Types].xml', 'ppt/presentation.xml'],
  title: { entry: 'docProps/core.xml' },
});
