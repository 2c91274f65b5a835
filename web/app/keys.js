// API keys (admin): create with a name (the raw key is shown once, with a copy button), list, revoke.
import { api, seg } from './api.js';
import { announce, cell, confirmThenRun, copyText, field, h, messageBox, pageTitle, time, whileBusy } from './dom.js';
import { describeError } from './messages.js';

function newKeyPanel(created, onDone) {
  const keyInput = h('input', { class: 'input input--mono', type: 'text', readonly: true, value: created.key, 'aria-label': 'New API key', spellcheck: 'false' });
  const copied = h('span', { class: 'copied', role: 'status' });
  const copy = h('button', { type: 'button', class: 'button button--primary' }, 'Copy key');
  copy.addEventListener('click', async () => {
    const ok = await copyText(created.key, keyInput);
    copied.textContent = ok ? 'Copied to the clipboard.' : 'Press Ctrl+C (or ⌘C) to copy the selected key.';
  });
  const done = h('button', { type: 'button', class: 'button button--secondary' }, 'Done');
  done.addEventListener('click', onDone);
  const title = h('h2', { tabindex: '-1' }, `Your new key “${created.name}”`);
  const panel = h(
    'section',
    { class: 'card card--highlight new-key' },
    title,
    h('p', {}, h('strong', {}, 'Copy it now: it will not be shown again. '), 'Programs send it in the X-API-Key header; it can upload, sign and verify for your organisation.'),
    h('div', { class: 'copy-row' }, keyInput, copy),
    copied,
    h('div', { class: 'actions' }, done),
  );
  return { panel, focus: () => title.focus() };
}

export function keysPage(ctx) {
  const { main, signal } = ctx;
  const error = messageBox('error');
  const listError = messageBox('error');
  const name = field('Key name', { type: 'text', name: 'name', required: true, maxlength: '100', autocomplete: 'off' }, 'What the key is for, e.g. “CMS production”.');
  const submit = h('button', { type: 'submit', class: 'button button--primary' }, 'Create key');
  const form = h('form', { class: 'form form--inline', novalidate: true }, name, h('div', { class: 'actions' }, submit));
  const slot = h('div');
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'table', hidden: true },
    h('caption', { class: 'visually-hidden' }, 'API keys'),
    h('thead', {}, h('tr', {}, ['Name', 'Key', 'Created', 'Last used', 'Status', 'Action'].map((c) => h('th', { scope: 'col' }, c)))),
    body,
  );
  const empty = h('p', { class: 'empty', hidden: true }, 'No API keys yet.');

  async function load() {
    const { api_keys: keys } = await api.get('/org/api-keys', { signal });
    body.replaceChildren(...keys.map(row));
    table.hidden = keys.length === 0;
    empty.hidden = keys.length !== 0;
  }

  function row(k) {
    const revoked = Boolean(k.revoked_at);
    let action;
    if (revoked) action = h('span', { class: 'muted' }, '—');
    else {
      action = h('button', { type: 'button', class: 'button button--danger button--small', 'aria-label': `Revoke “${k.name}”` }, 'Revoke');
      action.addEventListener('click', () => revoke(k, action));
    }
    return h(
      'tr',
      { dataset: { keyId: k.key_id } },
      cell('Name', k.name, { header: true }),
      cell('Key', h('code', {}, `${k.prefix}…`)),
      cell('Created', time(k.created_at)),
      cell('Last used', k.last_used_at ? time(k.last_used_at) : 'Never'),
      cell('Status', revoked ? h('span', { class: 'badge badge--failed' }, 'Revoked') : h('span', { class: 'badge badge--signed' }, 'Active')),
      cell('Action', action, { class: 'cell-actions' }),
    );
  }

  function revoke(k, button) {
    return confirmThenRun(
      { button, table, listError, signal, describe: describeError },
      { title: `Revoke “${k.name}”?`, body: 'Programs using this key stop working at once. This cannot be undone.', confirmLabel: 'Revoke key' },
      async () => {
        await api.delete(`/org/api-keys/${seg(k.key_id)}`, { signal });
        await load();
      },
      `The key “${k.name}” was revoked.`,
    );
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.hide();
    const value = form.elements.name.value.trim();
    if (!value) {
      error.show('Give the key a name.');
      form.elements.name.focus();
      return;
    }
    await whileBusy(submit, 'Creating…', async () => {
      try {
        const created = await api.post('/org/api-keys', { name: value }, { signal });
        form.reset();
        const { panel, focus } = newKeyPanel(created, () => {
          slot.replaceChildren();
          form.elements.name.focus();
        });
        slot.replaceChildren(panel);
        focus();
        announce('Key created. Copy it now: it will not be shown again.');
        await load();
      } catch (err) {
        if (!signal.aborted) error.show(describeError(err));
      }
    });
  });

  table.setAttribute('tabindex', '-1');
  main.append(
    ...pageTitle('API keys', 'Keys let programs upload, sign and verify for your organisation. They cannot manage users or other keys.'),
    h('section', { class: 'card' }, h('h2', {}, 'Create a key'), error.el, form),
    slot,
    h('section', { class: 'card card--flush' }, h('h2', { class: 'card__title' }, 'Keys'), listError.el, h('div', { class: 'table-wrap' }, table), empty),
  );
  load().catch((err) => {
    if (!signal.aborted) listError.show(describeError(err));
  });
}
