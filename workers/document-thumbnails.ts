import type { Logger } from 'pino';
import { pdftoppmVersion } from '../shared/media/pdf-page.js';

/**
 * Says once, at start, which documents will get claim thumbnails here: PDFs only with pdftoppm (EPUB covers need no
 * tool; other documents never get one).
 */
export async function logDocumentThumbnails(pdftoppmPath: string | undefined, logger: Logger): Promise<void> {
  if (!pdftoppmPath) return logger.info('PDFTOPPM_PATH=off: PDF documents are signed without claim thumbnails (EPUB covers still make them)');
  const version = await pdftoppmVersion(pdftoppmPath);
  if (version) logger.info({ pdftoppm: version }, 'PDF claim thumbnails: first pages rendered by pdftoppm');
  else logger.warn({ pdftoppmPath }, "pdftoppm cannot be run (PDFTOPPM_PATH): PDF documents are signed without claim thumbnails; install Debian's poppler-utils or set PDFTOPPM_PATH");
}
