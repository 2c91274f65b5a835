/**
 * The published files under `<dataDir>/crl/` (leaf.crl, sub-ca.crl, root-ca.cer, sub-ca.cer), for operators
 * who serve {crl_url} from a plain static host or CDN. Written atomically: a reader sees the old file or the
 * new one, never half of one.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { PUBLICATION_FILES } from './certificate-templates.js';
import { bytesEqual } from './der.js';

export type PublicationName = (typeof PUBLICATION_FILES)[keyof typeof PUBLICATION_FILES];

export function publicationDir(dataDir: string): string {
  return path.join(dataDir, 'crl');
}

export async function readPublicationFile(dataDir: string, name: PublicationName): Promise<Uint8Array | undefined> {
  try {
    return new Uint8Array(await readFile(path.join(publicationDir(dataDir), name)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes `der` as `name` unless the file already holds exactly it. Returns whether it wrote. */
export async function writePublicationFile(dataDir: string, name: PublicationName, der: Uint8Array): Promise<boolean> {
  const current = await readPublicationFile(dataDir, name);
  if (current && bytesEqual(current, der)) return false;
  const dir = publicationDir(dataDir);
  await mkdir(dir, { recursive: true });
  const target = path.join(dir, name);
  // Unique per attempt, in the same directory (rename is atomic only within one file system).
  const temp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(der);
    await handle.sync(); // the bytes reach the disk before the name points at them
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  return true;
}
