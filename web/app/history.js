// History: the organisation's sign jobs, newest first, with status and downloads. Jobs still in progress
// are refreshed every few seconds while the page is open.
import { api } from './api.js';
import { cell, h, messageBox, pageTitle, time } from './dom.js';
import { anchorInfo, chainLabel, downloadButton, isSettled, statusBadge } from './jobs.js';
import { describeError, describeJobError } from './messages.js';

const PAGE_SIZE = 20;
const REFRESH_MS = 5000;

function jobRow(job, onError) {
  const a = anchorInfo(job.anchor);
  const status = [statusBadge(job.status)];
  if (job.status === 'failed') status.push(h('p', { class: 'cell-note' }, describeJobError(job.error)));
  if (a?.link) status.push(h('p', { class: 'cell-note' }, h('a', { href: a.link, target: '_blank', rel: 'noopener noreferrer', class: 'external' }, `Transaction on ${chainLabel(a)}`)));
  const title = job.manifest?.title ?? 'Untitled';
  return h(
    'tr',
    { dataset: { jobId: job.job_id } },
    cell('Title', title, { header: true }),
    cell('Creator', job.manifest?.creator ?? ''),
    cell('Status', status),
    cell('Started', time(job.created_at)),
    cell(
      'File',
      job.signed_file ? downloadButton(job.signed_file, { label: 'Download', ariaLabel: `Download “${title}”`, small: true, onError }) : h('span', { class: 'muted' }, '—'),
      { class: 'cell-actions' },
    ),
  );
}

export function historyPage(ctx) {
  const { main, signal } = ctx;
  const error = messageBox('error');
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'table' },
    h('caption', { class: 'visually-hidden' }, 'Sign jobs, newest first'),
    h('thead', {}, h('tr', {}, ['Title', 'Creator', 'Status', 'Started', 'File'].map((c) => h('th', { scope: 'col' }, c)))),
    body,
  );
  const empty = h('p', { class: 'empty', hidden: true }, 'No images have been signed yet. ', h('a', { href: '#/sign' }, 'Sign your first image'), '.');
  const more = h('button', { type: 'button', class: 'button button--secondary', hidden: true }, 'Show older jobs');
  const refresh = h('button', { type: 'button', class: 'button button--secondary button--small' }, 'Refresh');
  let jobs = [];
  let cursor = null;
  let timer = null;

  const showError = (msg) => error.show(msg);

  function render() {
    body.replaceChildren(...jobs.map((j) => jobRow(j, showError)));
    table.hidden = jobs.length === 0;
    empty.hidden = jobs.length !== 0;
    more.hidden = !cursor;
  }

  let loadedMore = false;
  async function loadFirst() {
    const page = await api.get(`/v1/media/jobs?limit=${PAGE_SIZE}`, { signal });
    if (loadedMore) {
      // Older pages stay as they are; the newest page is replaced with fresh state (newest first).
      const fresh = new Set(page.jobs.map((j) => j.job_id));
      jobs = [...page.jobs, ...jobs.filter((j) => !fresh.has(j.job_id))];
    } else {
      jobs = page.jobs;
      cursor = page.next_cursor;
    }
    render();
  }

  function schedule() {
    clearTimeout(timer);
    if (signal.aborted || jobs.every(isSettled)) return;
    timer = setTimeout(async () => {
      try {
        await loadFirst();
      } catch {
        // transient: try again on the next tick
      }
      schedule();
    }, REFRESH_MS);
  }
  signal.addEventListener('abort', () => clearTimeout(timer));

  more.addEventListener('click', async () => {
    if (!cursor) return;
    more.disabled = true;
    try {
      const page = await api.get(`/v1/media/jobs?limit=${PAGE_SIZE}&cursor=${encodeURIComponent(cursor)}`, { signal });
      jobs = [...jobs, ...page.jobs.filter((j) => !jobs.some((k) => k.job_id === j.job_id))];
      cursor = page.next_cursor;
      loadedMore = true;
      render();
    } catch (err) {
      if (!signal.aborted) error.show(describeError(err));
    } finally {
      more.disabled = false;
    }
  });
  refresh.addEventListener('click', async () => {
    error.hide();
    try {
      await loadFirst();
      schedule();
    } catch (err) {
      if (!signal.aborted) error.show(describeError(err));
    }
  });

  main.append(
    h('div', { class: 'page-head' }, ...pageTitle('History'), refresh),
    h('p', { class: 'lead' }, 'Images your organisation has signed, newest first.'),
    error.el,
    h('section', { class: 'card card--flush' }, h('div', { class: 'table-wrap' }, table), empty),
    h('div', { class: 'actions' }, more),
  );
  table.hidden = true;
  loadFirst()
    .then(schedule)
    .catch((err) => {
      if (!signal.aborted) error.show(describeError(err));
    });
}
