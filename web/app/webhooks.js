// Webhooks (admin): create an endpoint for chosen events (the signing secret is shown once, with a copy button),
// list endpoints with their state (a disabled one says why), rotate a secret, enable or disable, delete, and read an
// endpoint's delivery log with a button to send one event again.
import { api, seg } from './api.js';
import { announce, cell, confirmDialog, copyText, field, h, messageBox, pageTitle, time, toast, whileBusy } from './dom.js';
import { describeError } from './messages.js';

const EVENTS = [
  ['sign_job.signed', 'A file was signed'],
  ['sign_job.failed', 'A file could not be signed'],
  ['file.anchored', 'A signed file was anchored on chain'],
  ['signing_certificate.issued', 'The signing certificate was issued'],
  ['signing_certificate.rotated', 'The signing certificate was rotated'],
  ['signing_certificate.revoked', 'The signing certificate was revoked'],
  ['signing_certificate.expiring', 'The signing certificate expires soon'],
];

function secretPanel(title, secret, onDone) {
  const input = h('input', { class: 'input input--mono', type: 'text', readonly: true, value: secret, 'aria-label': 'Signing secret', spellcheck: 'false' });
  const copied = h('span', { class: 'copied', role: 'status' });
  const copy = h('button', { type: 'button', class: 'button button--primary' }, 'Copy secret');
  copy.addEventListener('click', async () => {
    const ok = await copyText(secret, input);
    copied.textContent = ok ? 'Copied to the clipboard.' : 'Press Ctrl+C (or ⌘C) to copy the selected secret.';
  });
  const done = h('button', { type: 'button', class: 'button button--secondary' }, 'Done');
  done.addEventListener('click', onDone);
  const heading = h('h2', { tabindex: '-1' }, title);
  const panel = h(
    'section',
    { class: 'card card--highlight new-key' },
    heading,
    h('p', {}, h('strong', {}, 'Copy it now: it will not be shown again. '), 'Your receiver verifies every delivery with it (Standard Webhooks, e.g. the npm package standardwebhooks).'),
    h('div', { class: 'copy-row' }, input, copy),
    copied,
    h('div', { class: 'actions' }, done),
  );
  return { panel, focus: () => heading.focus() };
}

export function webhooksPage(ctx) {
  const { main, signal } = ctx;
  const error = messageBox('error');
  const listError = messageBox('error');
  const url = field('Endpoint URL', { type: 'url', name: 'url', required: true, maxlength: '2000', autocomplete: 'off', placeholder: 'https://' }, 'An https address on the public internet.');
  const boxes = EVENTS.map(([value, label]) => h('label', { class: 'checkbox' }, h('input', { type: 'checkbox', name: 'events', value, checked: value.startsWith('sign_job.') }), ` ${label} (${value})`));
  const events = h('fieldset', { class: 'field' }, h('legend', {}, 'Events'), ...boxes);
  const submit = h('button', { type: 'submit', class: 'button button--primary' }, 'Add endpoint');
  const form = h('form', { class: 'form', novalidate: true }, url, events, h('div', { class: 'actions' }, submit));
  const slot = h('div');
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'table', hidden: true, tabindex: '-1' },
    h('caption', { class: 'visually-hidden' }, 'Webhook endpoints'),
    h('thead', {}, h('tr', {}, ['URL', 'Events', 'Status', 'Created', 'Actions'].map((c) => h('th', { scope: 'col' }, c)))),
    body,
  );
  const empty = h('p', { class: 'empty', hidden: true }, 'No webhook endpoints yet.');
  const log = h('div');

  async function load() {
    const { webhooks } = await api.get('/org/webhooks', { signal });
    body.replaceChildren(...webhooks.map(row));
    table.hidden = webhooks.length === 0;
    empty.hidden = webhooks.length !== 0;
  }

  const act = (label, aria, onClick, kind = 'secondary') => {
    const b = h('button', { type: 'button', class: `button button--${kind} button--small`, 'aria-label': aria }, label);
    b.addEventListener('click', () => onClick(b));
    return b;
  };

  function row(w) {
    const status = w.enabled
      ? h('span', { class: 'badge badge--signed' }, 'Enabled')
      : h('span', {}, h('span', { class: 'badge badge--failed' }, 'Disabled'), w.disabled_reason ? h('p', { class: 'hint' }, w.disabled_reason) : null);
    return h(
      'tr',
      { dataset: { webhookId: w.webhook_id } },
      cell('URL', h('code', {}, w.url), { header: true }),
      cell('Events', w.events.join(', ')),
      cell('Status', status),
      cell('Created', time(w.created_at)),
      cell(
        'Actions',
        h(
          'div',
          { class: 'actions' },
          act('Deliveries', `Deliveries to ${w.url}`, () => showLog(w)),
          act(w.enabled ? 'Disable' : 'Enable', `${w.enabled ? 'Disable' : 'Enable'} ${w.url}`, (b) => setEnabled(w, !w.enabled, b)),
          act('Rotate secret', `Rotate the secret of ${w.url}`, (b) => rotate(w, b)),
          act('Delete', `Delete ${w.url}`, (b) => remove(w, b), 'danger'),
        ),
        { class: 'cell-actions' },
      ),
    );
  }

  async function guarded(fn) {
    listError.hide();
    try {
      await fn();
    } catch (err) {
      if (!signal.aborted) listError.show(describeError(err));
    }
  }

  const setEnabled = (w, enabled, button) =>
    whileBusy(button, '…', () =>
      guarded(async () => {
        await api.patch(`/org/webhooks/${seg(w.webhook_id)}`, { enabled }, { signal });
        await load();
        toast(enabled ? 'Endpoint enabled.' : 'Endpoint disabled.');
      }),
    );

  async function rotate(w, button) {
    const ok = await confirmDialog({ title: 'Rotate the signing secret?', body: 'A new secret signs from now on; the old one also signs for the grace period (24 hours by default), so update your receiver within it.', confirmLabel: 'Rotate secret' });
    if (!ok) return button.focus();
    await guarded(async () => {
      const rotated = await api.post(`/org/webhooks/${seg(w.webhook_id)}/rotate-secret`, {}, { signal });
      const { panel, focus } = secretPanel(`New secret for ${w.url}`, rotated.secret, () => slot.replaceChildren());
      slot.replaceChildren(panel);
      focus();
      announce('Secret rotated. Copy it now: it will not be shown again.');
      await load();
    });
  }

  async function remove(w, button) {
    const ok = await confirmDialog({ title: `Delete ${w.url}?`, body: 'Deliveries to it stop, and its delivery log is deleted.', confirmLabel: 'Delete endpoint', danger: true });
    if (!ok) return button.focus();
    await guarded(async () => {
      await api.delete(`/org/webhooks/${seg(w.webhook_id)}`, { signal });
      log.replaceChildren();
      await load();
      toast('Endpoint deleted.');
      table.focus();
    });
  }

  async function showLog(w) {
    await guarded(async () => {
      const { deliveries } = await api.get(`/org/webhooks/${seg(w.webhook_id)}/deliveries`, { signal });
      const rows = deliveries.map((d) => {
        const redeliver = d.status === 'pending' ? h('span', { class: 'muted' }, '—') : act('Send again', `Send event ${d.event_id} again`, (b) =>
          whileBusy(b, 'Sending…', () => guarded(async () => {
            await api.post(`/org/webhooks/${seg(w.webhook_id)}/deliveries/${seg(d.delivery_id)}/redeliver`, {}, { signal });
            toast('The event will be sent again.');
            await showLog(w);
          })));
        return h(
          'tr',
          {},
          cell('Event', h('span', {}, d.event_type, h('br'), h('code', {}, d.event_id)), { header: true }),
          cell('Status', h('span', { class: `badge badge--${d.status === 'delivered' ? 'signed' : d.status === 'failed' ? 'failed' : 'queued'}` }, d.status)),
          cell('Attempts', String(d.attempts)),
          cell('Last attempt', d.last_attempt_at ? time(d.last_attempt_at) : '—'),
          cell('Response', d.response_status === null ? (d.error ?? '—') : String(d.response_status)),
          cell('Duration', d.duration_ms === null ? '—' : `${d.duration_ms} ms`),
          cell('Action', redeliver, { class: 'cell-actions' }),
        );
      });
      const heading = h('h2', { class: 'card__title', tabindex: '-1' }, `Deliveries to ${w.url}`);
      log.replaceChildren(
        h(
          'section',
          { class: 'card card--flush' },
          heading,
          rows.length === 0
            ? h('p', { class: 'empty' }, 'No deliveries yet.')
            : h('div', { class: 'table-wrap' }, h('table', { class: 'table' }, h('thead', {}, h('tr', {}, ['Event', 'Status', 'Attempts', 'Last attempt', 'Response', 'Duration', 'Action'].map((c) => h('th', { scope: 'col' }, c)))), h('tbody', {}, ...rows))),
        ),
      );
      heading.focus();
    });
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.hide();
    const value = form.elements.url.value.trim();
    const chosen = boxes.map((b) => b.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
    if (!value) {
      error.show('Give the endpoint’s URL.');
      return form.elements.url.focus();
    }
    if (chosen.length === 0) return error.show('Choose at least one event.');
    await whileBusy(submit, 'Adding…', async () => {
      try {
        const created = await api.post('/org/webhooks', { url: value, events: chosen }, { signal });
        form.reset();
        const { panel, focus } = secretPanel(`Signing secret for ${created.url}`, created.secret, () => {
          slot.replaceChildren();
          form.elements.url.focus();
        });
        slot.replaceChildren(panel);
        focus();
        announce('Endpoint added. Copy its secret now: it will not be shown again.');
        await load();
      } catch (err) {
        if (!signal.aborted) error.show(describeError(err));
      }
    });
  });

  main.append(
    ...pageTitle('Webhooks', 'Your servers are told when files are signed, fail or are anchored, and when the signing certificate changes. Every delivery is signed (Standard Webhooks).'),
    h('section', { class: 'card' }, h('h2', {}, 'Add an endpoint'), error.el, form),
    slot,
    h('section', { class: 'card card--flush' }, h('h2', { class: 'card__title' }, 'Endpoints'), listError.el, h('div', { class: 'table-wrap' }, table), empty),
    log,
  );
  load().catch((err) => {
    if (!signal.aborted) listError.show(describeError(err));
  });
}
