/**
 * A PDF's first page as a picture, rendered by poppler's `pdftoppm` (Debian's `poppler-utils` package; PDFTOPPM_PATH):
 * c2pa-rs makes no thumbnails, and no JavaScript or WASM renderer on npm draws PDF pages without a browser's canvas.
 *
 * pdftoppm parses an untrusted file here, so, as ffmpeg for video frames (video-frame.ts), it runs with what it needs
 * only: the first page only, scaled to fit PAGE_LONG_EDGE pixels (the raster it allocates is bounded whatever size the
 * page declares), no stdin, a bare environment (PATH alone), output through a pipe capped at MAX_OUTPUT_BYTES, and
 * PAGE_TIMEOUT_MS, then SIGKILL. It opens no network connection and writes no file.
 */
import { execFile } from 'node:child_process';

export const PAGE_LONG_EDGE = 1024;
export const PAGE_TIMEOUT_MS = 30_000;
/** A 1024 px PNG of a page is at most about 3 MiB; more output than this is not a page. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export class PdfPageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PdfPageError';
  }
}

function runPdftoppm(pdftoppmPath: string, args: string[]): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      pdftoppmPath,
      args,
      { encoding: 'buffer', maxBuffer: MAX_OUTPUT_BYTES, timeout: PAGE_TIMEOUT_MS, killSignal: 'SIGKILL', windowsHide: true, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr: stderr.toString('utf8') });
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return reject(new PdfPageError(`pdftoppm was not found at "${pdftoppmPath}" (PDFTOPPM_PATH)`, { cause: err }));
        if (err.killed) return reject(new PdfPageError(`pdftoppm took longer than ${PAGE_TIMEOUT_MS / 1000} s`, { cause: err }));
        const said = stderr.toString('utf8').trim().split('\n').pop()?.slice(0, 300);
        reject(new PdfPageError(`pdftoppm could not render the first page${said ? `: ${said}` : ''}`, { cause: err }));
      },
    );
    // Nothing is ever read from stdin.
    child.stdin?.end();
  });
}

/**
 * The first page of the PDF at `filePath` as PNG, at most PAGE_LONG_EDGE pixels on its long side. Throws PdfPageError
 * when pdftoppm is missing, fails, times out or renders nothing (an encrypted PDF, one without pages).
 */
export async function pdfFirstPagePng(filePath: string, options: { pdftoppmPath: string }): Promise<Uint8Array> {
  // No output prefix: the page goes to stdout. `--` so a path can never be read as an option.
  const { stdout } = await runPdftoppm(options.pdftoppmPath, ['-q', '-f', '1', '-l', '1', '-singlefile', '-png', '-scale-to', String(PAGE_LONG_EDGE), '--', filePath]);
  if (stdout.byteLength === 0) throw new PdfPageError('pdftoppm rendered no page');
  return new Uint8Array(stdout.buffer, stdout.byteOffset, stdout.byteLength);
}

/** pdftoppm's version line ("pdftoppm version 22.12.0"), or undefined when it cannot be run. */
export async function pdftoppmVersion(pdftoppmPath: string): Promise<string | undefined> {
  try {
    const { stdout, stderr } = await runPdftoppm(pdftoppmPath, ['-v']);
    return `${stdout.toString('utf8')}${stderr}`.split('\n')[0]?.trim() || undefined;
  } catch {
    return undefined;
  }
}
