import { defineZipDocument } from '../walks/zip-document.js';

export const xlsx = defineZipDocument({
  mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  extensions: ['xlsx'],
  label: 'Excel workbook',
  marker: { mainPart: 'xl/workbook.xml' },
  required: ['[Content_Types].xml', 'xl/workbook.xml'],
  title: { entry: 'docProps/core.xml' },
});
