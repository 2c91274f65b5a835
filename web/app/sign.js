// Sign: pick or drop a file of any format of the registry (/app/formats.js), give a title and creator (or choose one of the organisation's manifest
// templates, whose defaults the entered fields replace), then follow the job from upload to signed (and
// anchored, where the service anchors) and download the result.
import { api, seg } from './api.js';
import { dropZone } from './drop-zone.js';
import { announce, field, formatBytes, h, messageBox, pageTitle, shown } from './dom.js';
import { acceptList, formatOf, formatsHint, refusalFor } from './files.js';
import { MEDIA_FORMATS } from './formats.js';
import { anchorDetails, anchorInfo, downloadButton, hasAnchoring, isSettled, statusLabel } from './jobs.js';
import { describeError, describeJobError } from './messages.js';
import { uploadResumable } from './resumable.js';
import { loadAllTemplates, templateSummary } from './templates.js';

/** How long the page keeps following an anchor that is still pending once the file is signed. */
const ANCHOR_FOLLOW_MS = 10 * 60_000;

/**
 * What the file's soft binding will be: ISCC fingerprints are made of images only (as the organisation's setting or
 * the template says); video, audio and documents are signed with none, and the job answers soft_binding: false.
 */
function softBindingNote(format) {
  if (format?.kind === 'image') return 'Soft binding: ISCC fingerprint, unless your organisation or the template turned it off';
  return 'Soft binding: none (fingerprints are made of images only)';
}

/** A hidden checkbox field with its hint, shown when the option applies: [the field, its checkbox]. */
function optionField(name, label, hint) {
  const box = h('input', { type: 'checkbox', name });
  return [h('div', { class: 'field', hidden: true }, h('label', {}, box, ` ${label}`), h('p', { class: 'hint' }, hint)), box];
}

function newIdempotencyKey() {
  if (crypto.randomUUID) return `web-${crypto.randomUUID()}`;
  const b = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')}`;
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

/**
 * Follows a job until it settles, calling onUpdate with each new state. The API holds `?wait=` requests
 * while the job is queued or processing; short waits keep "processing" visible as it happens.
 */
export async function followJob(jobId, { signal, onUpdate, onConnectionTrouble }) {
  let job;
  let quiet = 0;
  let failures = 0;
  let signedAt = 0;
  for (;;) {
    if (signal.aborted) return job;
    const started = Date.now();
    try {
      const next = await api.get(`/v1/media/jobs/${seg(jobId)}?wait=2`, { signal });
      failures = 0;
      onConnectionTrouble?.(false);
      const changed = !job || next.status !== job.status || JSON.stringify(next.anchor) !== JSON.stringify(job.anchor);
      job = next;
      if (changed) onUpdate(job);
      if (isSettled(job)) return job;
      if (job.signed_file && !signedAt) signedAt = Date.now();
      if (signedAt && Date.now() - signedAt > ANCHOR_FOLLOW_MS) return job;
      quiet = changed ? 0 : quiet + 1;
    } catch (err) {
      if (signal.aborted) return job;
      if (err?.code !== 'network' && !(err?.status >= 500)) throw err;
      failures += 1;
      onConnectionTrouble?.(true);
      if (failures > 20) throw err;
    }
    // A response that came back at once (the job is past the held states, e.g. anchoring) is not
    // repeated at once: back off up to 10 seconds.
    if (Date.now() - started < 1000) await sleep(Math.min(10_000, 1000 * 2 ** Math.min(quiet + failures, 4)), signal);
  }
}

const STEP_LABELS = { upload: 'Upload', queued: 'Queued', processing: 'Processing', signed: 'Signed', anchored: 'Anchored' };

/** The steps and how far the job is: { steps, current, failed }. */
function progressOf(stage, job) {
  const steps = ['upload', 'queued', 'processing', 'signed'];
  if (job && hasAnchoring(job)) steps.push('anchored');
  let current;
  if (stage === 'upload') current = 'upload';
  else if (!job) current = 'queued';
  else if (job.status === 'queued' || job.status === 'processing') current = job.status;
  else if (job.status === 'failed') current = job.signed_file ? 'anchored' : 'processing';
  else if (job.status === 'anchored' || (job.status === 'signed' && isSettled(job))) current = 'done';
  else current = 'anchored'; // signed, anchor pending; or anchoring
  return { steps, current, failed: job?.status === 'failed' || anchorInfo(job?.anchor)?.failed === true };
}

function renderSteps(list, { steps, current, failed }) {
  const at = current === 'done' ? steps.length : steps.indexOf(current);
  list.replaceChildren(
    ...steps.map((step, i) => {
      const state = i < at ? 'done' : i === at ? (failed ? 'failed' : 'current') : 'todo';
      const words = { done: 'done', current: 'in progress', failed: 'failed', todo: 'not started' }[state];
      return h(
        'li',
        { class: `steps__item steps__item--${state}`, 'aria-current': state === 'current' ? 'step' : undefined },
        h('span', { class: 'steps__mark', 'aria-hidden': 'true' }, state === 'done' ? '✓' : state === 'failed' ? '✕' : String(i + 1)),
        h('span', { class: 'steps__label' }, STEP_LABELS[step]),
        h('span', { class: 'visually-hidden' }, `: ${words}`),
      );
    }),
  );
}

export function signPage(ctx) {
  const { main, signal } = ctx;
  let file = null;
  let previewUrl = null;
  signal.addEventListener('abort', () => previewUrl && URL.revokeObjectURL(previewUrl));

  const fileError = messageBox('error');
  const formError = messageBox('error');
  const zone = dropZone({
    label: 'Drop an image, video, audio file or document here',
    hint: formatsHint(MEDIA_FORMATS),
    accept: acceptList(MEDIA_FORMATS),
    onFile: (f) => choose(f),
    onRefuse: (why) => refuse(why),
  });
  const chosen = h('div', { class: 'chosen', hidden: true });
  const title = field('Title', { type: 'text', name: 'title', required: true, maxlength: '256' }, 'The title written into the file’s Content Credentials.');
  const CREATOR_HINT = 'The author: a person or organisation.';
  const creator = field('Creator', { type: 'text', name: 'creator', required: true, maxlength: '256', autocomplete: 'name' }, CREATOR_HINT);
  const creatorHint = creator.querySelector('.hint');
  // The organisation's templates, offered when there are any. Choosing one fills nothing in: it is sent as
  // template_id, and what is entered here replaces the template's values.
  let templates = [];
  const TEMPLATE_HINT = 'Your organisation’s defaults (publisher, copyright, AI training choices…). What you enter below replaces them.';
  const templateSelect = h('select', { class: 'input', name: 'template' }, h('option', { value: '' }, 'No template'));
  const template = field('Template', templateSelect, TEMPLATE_HINT);
  const templateHint = template.querySelector('.hint');
  template.hidden = true;
  const chosenTemplate = () => templates.find((t) => t.template_id === templateSelect.value);
  function templateChanged() {
    const t = chosenTemplate();
    const summary = t ? templateSummary(t) : [];
    templateHint.textContent = t ? (summary.length ? `From the template: ${shown(summary.join('; '))}. What you enter below replaces it.` : 'This template sets nothing.') : TEMPLATE_HINT;
    const input = form.elements.creator;
    input.required = !t?.manifest.creator;
    creatorHint.textContent = t?.manifest.creator ? `Optional: the template gives “${shown(t.manifest.creator)}”. What you enter replaces it.` : CREATOR_HINT;
  }
  templateSelect.addEventListener('change', templateChanged);
  const description = field('Description (optional)', h('textarea', { class: 'input', name: 'description', rows: '2', maxlength: '2000' }));
  const submit = h('button', { type: 'submit', class: 'button button--primary' }, 'Sign file');
  // "Sign as me": offered when the user has an identity certificate (GET /auth/me/identity-certificate); adds a CAWG
  // identity assertion naming them as creator. Off by default: validators that do not trust the service's identity CA
  // then read the file as less trusted.
  const [signAsMe, signAsMeBox] = optionField('sign_as_me', 'Sign as me', 'Names you as the creator, with your identity certificate. Verifiers that do not trust this service’s identity CA show the file as less trusted.');
  // "Keep the manifest on this service": manifest_placement "remote", offered for the formats that can carry one
  // (/app/formats.js says which). Unticked, the template's choice applies (else the manifest is embedded).
  const [remote, remoteBox] = optionField(
    'remote_manifest',
    'Keep the manifest on this service (remote manifest)',
    'The file then carries only a link to its Content Credentials, which this service serves; verifiers fetch them from there.',
  );
  const form = h('form', { class: 'form sign-form', novalidate: true }, zone.el, fileError.el, chosen, template, title, creator, description, signAsMe, remote, formError.el, h('div', { class: 'actions' }, submit));
  const formCard = h('section', { class: 'card', 'aria-label': 'File and details' }, form);

  const progressTitle = h('h2', { tabindex: '-1' }, 'Signing');
  const stepsList = h('ol', { class: 'steps' });
  const uploadBar = h('progress', { class: 'upload-bar', max: '1', value: '0', 'aria-label': 'Upload progress' });
  const detail = h('p', { class: 'progress-detail', role: 'status' });
  const jobError = messageBox('error');
  const result = h('div', { class: 'result' });
  const again = h('button', { type: 'button', class: 'button button--secondary' }, 'Sign another file');
  const progress = h('section', { class: 'card progress', hidden: true, 'aria-labelledby': 'progress-title' }, progressTitle, stepsList, uploadBar, detail, jobError.el, result, h('div', { class: 'actions' }, again));
  progressTitle.id = 'progress-title';

  function refuse(why) {
    fileError.show(why);
    announce(why);
  }

  async function choose(f) {
    fileError.hide();
    const why = await refusalFor(f, MEDIA_FORMATS);
    if (why) {
      refuse(why);
      return;
    }
    file = f;
    const format = await formatOf(f, MEDIA_FORMATS);
    if (previewUrl) URL.revokeObjectURL(previewUrl);
    // A preview for images only (the page's policy loads no media from blob: URLs).
    previewUrl = format?.kind === 'image' ? URL.createObjectURL(f) : null;
    chosen.replaceChildren(
      ...(previewUrl ? [h('img', { class: 'chosen__preview', src: previewUrl, alt: '' })] : []),
      h('div', { class: 'chosen__meta' }, h('strong', { class: 'chosen__name' }, f.name), h('span', {}, `${format?.label ?? 'File'} · ${formatBytes(f.size)}`), h('span', { class: 'chosen__soft-binding' }, softBindingNote(format))),
      h('button', { type: 'button', class: 'button button--link', onclick: () => reset(true) }, 'Remove'),
    );
    chosen.hidden = false;
    remote.hidden = !format?.remoteManifest;
    if (remote.hidden) remoteBox.checked = false;
    const titleInput = form.elements.title;
    if (!titleInput.value) titleInput.value = f.name.replace(/\.[^.]+$/, '').slice(0, 256);
    announce(`${f.name} selected.`);
  }

  function reset(focusZone) {
    file = null;
    if (previewUrl) URL.revokeObjectURL(previewUrl);
    previewUrl = null;
    chosen.hidden = true;
    chosen.replaceChildren();
    remote.hidden = true;
    remoteBox.checked = false;
    fileError.hide();
    if (focusZone) zone.input.focus();
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    formError.hide();
    if (!file) {
      refuse('Choose a file to sign first.');
      zone.input.focus();
      return;
    }
    const t = chosenTemplate();
    const manifest = { title: form.elements.title.value.trim() };
    const who = form.elements.creator.value.trim();
    if (who) manifest.creator = who;
    const desc = form.elements.description.value.trim();
    if (desc) manifest.description = desc;
    if (!manifest.title || (!manifest.creator && !t?.manifest.creator)) {
      formError.show(!manifest.title ? 'Enter a title.' : 'Enter the creator.');
      (manifest.title ? form.elements.creator : form.elements.title).focus();
      return;
    }
    await run(file, manifest, t?.template_id);
  });

  let running = null; // AbortController of the job being followed
  again.addEventListener('click', () => {
    running?.abort(); // stop following (e.g. a pending anchor): History shows it later
    progress.hidden = true;
    formCard.hidden = false;
    form.reset();
    templateChanged();
    reset(true);
  });

  async function run(f, manifest, templateId) {
    const controller = new AbortController();
    running = controller;
    const stop = () => controller.abort();
    signal.addEventListener('abort', stop, { once: true });
    const runSignal = controller.signal;
    formCard.hidden = true;
    progress.hidden = false;
    jobError.hide();
    result.replaceChildren();
    again.hidden = true;
    uploadBar.hidden = false;
    uploadBar.max = Math.max(1, f.size);
    uploadBar.value = 0;
    renderSteps(stepsList, progressOf('upload', null));
    detail.textContent = `Uploading ${shown(f.name)}…`;
    progressTitle.textContent = `Signing “${shown(manifest.title)}”`;
    progressTitle.focus();
    let job = null;
    try {
      // Resumable whatever the size: a dropped connection goes on from the bytes the service has.
      const upload = await uploadResumable(f, {
        signal: runSignal,
        onProgress: (sent, total) => {
          uploadBar.value = sent;
          const words = `${formatBytes(sent)} of ${formatBytes(total)}`;
          uploadBar.setAttribute('aria-valuetext', words);
          detail.textContent = `Uploading ${shown(f.name)}: ${words}`;
        },
      });
      uploadBar.hidden = true;
      const body = { upload_id: upload.upload_id, manifest };
      if (templateId) body.template_id = templateId;
      if (!signAsMe.hidden && signAsMeBox.checked) body.identity = { roles: ['cawg.creator'] };
      if (!remote.hidden && remoteBox.checked) body.manifest_placement = 'remote';
      job = await api.post('/v1/media/sign', body, { signal: runSignal, headers: { 'Idempotency-Key': newIdempotencyKey() } });
      show(job);
      job = await followJob(job.job_id, {
        signal: runSignal,
        onUpdate: show,
        onConnectionTrouble: (trouble) => {
          if (trouble) detail.textContent = 'The connection was lost. Retrying…';
        },
      });
      if (runSignal.aborted) return;
      if (job && !isSettled(job) && job.signed_file) {
        detail.textContent = 'Signed. Anchoring is taking longer than usual; History shows when it completes.';
      }
    } catch (err) {
      if (runSignal.aborted) return;
      uploadBar.hidden = true;
      renderSteps(stepsList, { ...progressOf(job ? 'job' : 'upload', job), failed: true });
      detail.textContent = '';
      jobError.show(describeError(err));
    } finally {
      signal.removeEventListener('abort', stop);
    }
    again.hidden = false;
  }

  function show(job) {
    renderSteps(stepsList, progressOf('job', job));
    const a = anchorInfo(job.anchor);
    const words = {
      queued: job.attempts > 0 ? `Queued for another attempt after a temporary problem (attempt ${job.attempts + 1}).` : 'Queued: waiting for a signing worker.',
      processing: 'Processing: embedding the Content Credentials and signing through the key vault.',
      signed: hasAnchoring(job) && !isSettled(job) ? 'Signed. Anchoring the file’s hash on chain…' : 'Signed. The Content Credentials are embedded in the file.',
      anchoring: 'Signed. Anchoring the file’s hash on chain…',
      anchored: 'Signed and anchored on chain.',
      failed: 'Signing failed.',
    }[job.status] ?? statusLabel(job.status);
    detail.textContent = a?.failed ? `${words} Anchoring on chain failed; the signed file is still valid.` : words;
    if (job.status === 'failed') jobError.show(describeJobError(job.error));
    // Done from the user's point of view once the file is signed (or failed); an anchor may follow.
    if (job.signed_file || job.status === 'failed') again.hidden = false;
    if (job.signed_file && !result.querySelector('.download')) {
      const dl = downloadButton(job.signed_file, { label: 'Download signed file', onError: (msg) => jobError.show(msg) });
      dl.classList.add('download');
      result.replaceChildren(
        h('div', { class: 'result__file' }, h('p', {}, `${MEDIA_FORMATS.find((f) => f.mimeType === job.signed_file.mime_type)?.label ?? job.signed_file.mime_type} · ${formatBytes(job.signed_file.size)}`), dl),
        h('div', { class: 'result__anchor' }),
      );
      dl.focus();
    }
    const anchorBox = result.querySelector('.result__anchor');
    if (anchorBox) anchorBox.replaceChildren(...(a ? [h('h3', {}, 'On-chain anchor'), anchorDetails(job.anchor)] : []));
  }

  main.append(
    ...pageTitle('Sign a file', 'Embed C2PA Content Credentials — title, creator and this service’s signature — into an image, a video, an audio file or a document.'),
    formCard,
    progress,
  );
  api
    .get('/auth/me/identity-certificate', { signal })
    .then((mine) => {
      if (!signal.aborted && mine?.current) signAsMe.hidden = false;
    })
    .catch(() => undefined);
  // Without templates (or when they cannot be read) the page signs as before.
  loadAllTemplates(signal)
    .then((list) => {
      if (signal.aborted || list.length === 0) return;
      templates = list;
      templateSelect.append(...list.map((t) => h('option', { value: t.template_id }, t.name)));
      template.hidden = false;
    })
    .catch(() => undefined);
}
