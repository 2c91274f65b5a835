import type sharpModule from 'sharp';

let loading: Promise<typeof sharpModule> | undefined;

/**
 * sharp (libvips), loaded at its first use rather than with the modules that call it: about 20 MB of a process's
 * memory that the roles which never decode an image at rest (the worker's parent, the web role between requests,
 * the scheduler) would otherwise hold. The processes that decode (sandboxes, the verification pool) import it at
 * their start.
 */
export function loadSharp(): Promise<typeof sharpModule> {
  loading ??= import('sharp').then((m) => m.default);
  return loading;
}
