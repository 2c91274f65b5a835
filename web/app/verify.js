// Verify: drop any image, video or audio file; the service reads its C2PA manifest, judges it against this
// service's root, and reports the signer's revocation status and any on-chain anchor; for a file without one, the
// credentials recovered by its fingerprint (the organisation's own files too), each marked as not bound to the file.
import { api } from './api.js';
import { dropZone } from './drop-zone.js';
import { formatBytes, h, messageBox, pageTitle, uid } from './dom.js';
import { acceptList, formatsHint } from './files.js';
import { MEDIA_FORMATS } from './formats.js';
import { describeError } from './messages.js';
import { resultBody } from './recovered-view.js';

/**
 * What Verify accepts: every media format of the service's registry, served as /app/formats.js, by MIME type and by
 * extension (browsers do not know every type, HEIC and DNG among them).
 */
export const VERIFIABLE_TYPES = MEDIA_FORMATS.map((f) => f.mimeType);
// A .c2pa manifest store may be checked on its own too (its report: who signed it, what it says).
export const VERIFY_ACCEPT = `${acceptList(MEDIA_FORMATS)},.c2pa,application/c2pa`;
export const VERIFY_HINT = `${formatsHint(MEDIA_FORMATS)}; or a .c2pa manifest store`;

/**
 * The optional sidecar: a file's .c2pa manifest store, sent with it (part `manifest`) and checked against it. Chosen
 * before the file is dropped.
 */
export function sidecarPicker() {
  // The input is made on request: until then the drop zone's is the page's only file input.
  let input = null;
  const add = h('button', { type: 'button', class: 'button button--secondary' }, 'Add its sidecar manifest (.c2pa), optional');
  const el = h('p', { class: 'sidecar-picker' }, add);
  add.addEventListener('click', () => {
    input = h('input', { type: 'file', id: uid('sidecar'), accept: '.c2pa,application/c2pa' });
    el.replaceChildren(h('label', { for: input.id }, 'Sidecar manifest (.c2pa), sent with the file: '), input);
    input.focus();
  });
  return { el, file: () => input?.files?.[0] ?? null };
}

export function verifyPage(ctx) {
  const { main, signal } = ctx;
  const error = messageBox('error');
  const status = h('p', { class: 'progress-detail', role: 'status' });
  const result = h('section', { class: 'card result-card', hidden: true, 'aria-labelledby': 'verify-result-title' });
  let busy = false;
  const sidecar = sidecarPicker();
  // The checked file, shown beside a recovered signed image (a blob: URL; the file never leaves the browser for it).
  let previewUrl = null;
  signal.addEventListener('abort', () => previewUrl && URL.revokeObjectURL(previewUrl));

  const zone = dropZone({
    label: 'Drop an image, video or audio file to check it',
    hint: VERIFY_HINT,
    accept: VERIFY_ACCEPT,
    onFile: (f) => check(f),
    onRefuse: (why) => error.show(why),
  });

  async function check(file) {
    if (busy) return;
    busy = true;
    zone.setDisabled(true);
    error.hide();
    result.hidden = true;
    status.textContent = `Checking ${file.name}…`;
    try {
      const report = await api.postFile('/v1/media/verify', file, { signal, parts: { manifest: sidecar.file() } });
      status.textContent = '';
      if (previewUrl) URL.revokeObjectURL(previewUrl);
      previewUrl = URL.createObjectURL(file);
      const heading = h('h2', { id: 'verify-result-title', tabindex: '-1' }, file.name);
      result.replaceChildren(heading, h('p', { class: 'muted' }, formatBytes(file.size)), ...resultBody(report, previewUrl));
      result.hidden = false;
      heading.focus();
    } catch (err) {
      if (signal.aborted) return;
      status.textContent = '';
      error.show(describeError(err));
    } finally {
      busy = false;
      zone.setDisabled(false);
    }
  }

  main.append(
    ...pageTitle('Verify a file', 'Check a file’s Content Credentials: who signed it, whether it changed since, and whether the signer is revoked.'),
    h('section', { class: 'card' }, zone.el, sidecar.el, status, error.el),
    result,
  );
}
