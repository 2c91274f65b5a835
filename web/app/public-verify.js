// The public verify page (/verify, no account): drop or pick an image and see its embedded Content Credentials
// or, for a file without any, the credentials recovered by its fingerprint, each clearly marked as not bound to
// the file and shown beside the signed image they belong to. After a check the address becomes /verify#<sha256>,
// a permalink to the stored result (GET /v1/verify/<sha256>). No token is read or sent here: every request is
// made without credentials.
import { publicRequest } from './api.js';
import { dropZone } from './drop-zone.js';
import { copyText, formatBytes, formatDate, h, messageBox, pageTitle, uid } from './dom.js';
import { sniff } from './files.js';
import { describeCheckError } from './messages.js';
import { resultBody, summaryOf } from './recovered-view.js';
import { sidecarPicker, VERIFIABLE_TYPES, VERIFY_ACCEPT, VERIFY_HINT } from './verify.js';

const PERMALINK = /^#([0-9a-fA-F]{64})$/;

function permalinkBox(url) {
  const input = h('input', { class: 'input input--mono', type: 'text', readonly: true, value: url, id: uid('permalink'), spellcheck: 'false' });
  const copied = h('span', { class: 'copied', role: 'status' });
  const copy = h('button', { type: 'button', class: 'button button--secondary' }, 'Copy link');
  copy.addEventListener('click', async () => {
    const ok = await copyText(url, input);
    copied.textContent = ok ? 'Link copied to the clipboard.' : 'Press Ctrl+C (or ⌘C) to copy the selected link.';
  });
  return h('div', { class: 'permalink' }, h('label', { for: input.id }, 'Permalink to this result'), h('div', { class: 'copy-row' }, input, copy), copied);
}

function start(main) {
  const error = messageBox('error');
  const status = h('p', { class: 'progress-detail', role: 'status' });
  const bar = h('progress', { class: 'upload-bar', max: '100', value: '0', hidden: true, 'aria-label': 'Sending the file' });
  const result = h('section', { class: 'card result-card', hidden: true, 'aria-labelledby': 'verify-result-title' });
  let previewUrl = null;
  let current = null; // AbortController of the request in flight
  let busy = false; // a file is being checked (a drop on the disabled zone still arrives)

  const sidecar = sidecarPicker();
  const zone = dropZone({
    label: 'Drop an image, video or audio file to check it',
    hint: VERIFY_HINT,
    accept: VERIFY_ACCEPT,
    onFile: (f) => {
      if (!busy) void check(f);
    },
    onRefuse: (why) => error.show(why),
  });

  function begin() {
    current?.abort();
    current = new AbortController();
    error.hide();
    status.textContent = '';
    return current.signal;
  }

  function show(report, { heading, meta, focus }) {
    const title = h('h2', { id: 'verify-result-title', tabindex: '-1' }, heading);
    // A result read from a sidecar or remote manifest is not kept (permalink null): the file's permalink shows only
    // what the file alone proves.
    const sha = report.permalink && typeof report.sha256 === 'string' && /^[0-9a-f]{64}$/.test(report.sha256) ? report.sha256 : null;
    if (sha && location.hash !== `#${sha}`) history.replaceState(null, '', `/verify#${sha}`);
    result.replaceChildren(
      title,
      ...meta.map((m) => h('p', { class: 'result-meta muted' }, m)),
      ...resultBody(report, previewUrl),
      sha
        ? permalinkBox(`${location.origin}/verify#${sha}`)
        : h('p', { class: 'result-meta muted' }, 'No permalink: this result was read from a manifest outside the file (a sidecar or a remote manifest), so it is not kept. A permalink shows what the file alone proves.'),
    );
    result.hidden = false;
    status.textContent = `Result: ${summaryOf(report)}`;
    if (focus) title.focus();
  }

  async function check(file) {
    const signal = begin();
    result.hidden = true;
    // The address no longer names a result on screen.
    if (location.hash) history.replaceState(null, '', location.pathname);
    if (file.size === 0) {
      error.show(`“${file.name}” is empty.`);
      return;
    }
    const kind = await sniff(file).catch(() => null);
    if (kind && !VERIFIABLE_TYPES.includes(kind.type)) {
      error.show(`“${file.name}” is a ${kind.name}. Content Credentials can be checked in images, video, audio and documents of the formats listed.`);
      return;
    }
    if (previewUrl) URL.revokeObjectURL(previewUrl);
    previewUrl = URL.createObjectURL(file);
    busy = true;
    zone.setDisabled(true);
    status.textContent = `Checking ${file.name}…`;
    bar.value = 0;
    bar.hidden = false;
    try {
      const form = new FormData();
      form.append('file', file, file.name);
      const manifest = sidecar.file();
      if (manifest) form.append('manifest', manifest, manifest.name);
      const report = await publicRequest('POST', '/v1/verify', {
        form,
        signal,
        onUploadProgress: (f) => {
          bar.value = Math.round(f * 100);
        },
      });
      if (signal.aborted) return;
      show(report, {
        heading: file.name,
        meta: [[formatBytes(file.size), report.checked_at ? `checked ${formatDate(report.checked_at)}` : null].filter(Boolean).join(', ')],
        focus: true,
      });
    } catch (err) {
      if (signal.aborted) return;
      status.textContent = '';
      error.show(describeCheckError(err));
    } finally {
      // Also when a permalink opened meanwhile aborted this check: the zone is usable again.
      busy = false;
      bar.hidden = true;
      zone.setDisabled(false);
    }
  }

  /** Opens a permalink: the stored result of an earlier check of a file with this hash. */
  async function load(sha256, { focus }) {
    const signal = begin();
    if (previewUrl) URL.revokeObjectURL(previewUrl);
    previewUrl = null;
    result.hidden = true;
    status.textContent = 'Loading the stored result…';
    try {
      const report = await publicRequest('GET', `/v1/verify/${sha256}`, { signal });
      if (signal.aborted) return;
      show(report, {
        heading: 'Result of an earlier check',
        meta: [
          report.checked_at ? `Checked ${formatDate(report.checked_at)}. This is the stored result: the signer’s revocation status or the anchor may have changed since. Check the file again for a current answer.` : 'This is the stored result of an earlier check.',
        ],
        focus,
      });
    } catch (err) {
      if (signal.aborted) return;
      status.textContent = '';
      error.show(
        err?.status === 404 ? 'No result is stored for this link: only files someone checked on this page are kept, by their hash. Drop the file to check it.' : describeCheckError(err),
      );
    }
  }

  main.replaceChildren(
    ...pageTitle('Check a file’s Content Credentials', 'Who signed an image, video or audio file, and whether it changed since. Images that lost their credentials on the way (re-encoded, resized) are matched by their fingerprint. No account needed.'),
    h(
      'section',
      { class: 'card', 'aria-label': 'Choose an image' },
      zone.el,
      sidecar.el,
      bar,
      status,
      error.el,
      h(
        'p',
        { class: 'small-print' },
        'The image is sent to the service to be read and is not stored: only its SHA-256 hash and the result are kept, so that the permalink can show the result again. The side-by-side preview of your image stays in this browser.',
      ),
    ),
    result,
  );

  const fromHash = (focus) => {
    const m = PERMALINK.exec(location.hash);
    if (m) void load(m[1].toLowerCase(), { focus });
  };
  window.addEventListener('hashchange', () => fromHash(true));
  fromHash(false);
}

// The skip link moves focus to the content instead of replacing the permalink in the address.
document.querySelector('.skip-link')?.addEventListener('click', (e) => {
  e.preventDefault();
  document.getElementById('main')?.focus();
});
const main = document.getElementById('main');
if (main) start(main);
