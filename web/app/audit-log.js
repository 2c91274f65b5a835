// Audit log (admin): the organisation's security events, newest first, with filters by action and actor, more on
// demand, and the latest signed checkpoint of the log they belong to.
import { api } from './api.js';
import { cell, field, h, messageBox, pageTitle, time, whileBusy } from './dom.js';
import { describeError } from './messages.js';

function actorText(actor) {
  if (!actor) return '—';
  if (actor.type === 'anonymous') return `anonymous (${actor.address})`;
  if (actor.type === 'service') return `service: ${actor.role}`;
  if (actor.type === 'operator') return `operator: ${actor.command}`;
  return `${actor.type === 'api_key' ? 'API key' : 'user'} ${actor.id}`;
}

export function auditLogPage(ctx) {
  const { main, signal } = ctx;
  const listError = messageBox('error');
  const action = h('select', { class: 'input', name: 'action' }, h('option', { value: '' }, 'All actions'));
  const actor = field('Actor', { type: 'text', name: 'actor', maxlength: '200', autocomplete: 'off' }, 'A user or API key id, an address, or a type (user, api_key, anonymous).');
  const apply = h('button', { type: 'submit', class: 'button button--primary' }, 'Show');
  const form = h('form', { class: 'form form--inline', novalidate: true }, field('Action', action), actor, h('div', { class: 'actions' }, apply));
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'table', hidden: true, tabindex: '-1' },
    h('caption', { class: 'visually-hidden' }, 'Audit events'),
    h('thead', {}, h('tr', {}, ['Time', 'Action', 'Actor', 'Target', 'Outcome', 'Leaf'].map((c) => h('th', { scope: 'col' }, c)))),
    body,
  );
  const empty = h('p', { class: 'empty', hidden: true }, 'No events match.');
  const more = h('button', { type: 'button', class: 'button', hidden: true }, 'Older events');
  const checkpoint = h('p', { class: 'muted' }, 'No signed checkpoint yet.');
  let cursor = null;

  const row = (e) =>
    h(
      'tr',
      { dataset: { eventId: e.id } },
      cell('Time', time(e.time), { header: true }),
      cell('Action', h('code', {}, e.action)),
      cell('Actor', actorText(e.actor)),
      cell('Target', e.target ? `${e.target.type} ${e.target.id}` : '—'),
      cell('Outcome', e.outcome),
      cell('Leaf', String(e.leaf_index)),
    );

  async function load(append) {
    const params = new URLSearchParams({ limit: '50' });
    if (action.value) params.set('action', action.value);
    const who = form.elements.actor.value.trim();
    if (who) params.set('actor', who);
    if (append && cursor) params.set('cursor', cursor);
    const page = await api.get(`/org/audit-events?${params}`, { signal });
    const rows = page.events.map(row);
    if (append) body.append(...rows);
    else body.replaceChildren(...rows);
    cursor = page.next_cursor;
    more.hidden = cursor === null;
    table.hidden = body.children.length === 0;
    empty.hidden = body.children.length !== 0;
  }

  const show = (append, button) =>
    whileBusy(button, 'Loading…', async () => {
      listError.hide();
      try {
        await load(append);
      } catch (err) {
        if (!signal.aborted) listError.show(describeError(err));
      }
    });

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void show(false, apply);
  });
  more.addEventListener('click', () => void show(true, more));

  main.append(
    ...pageTitle(
      'Audit log',
      'Every security event of your organisation: sign-ins, users, API keys, configuration, signatures and certificates. Events are the leaves of an append-only Merkle log whose signed checkpoints are anchored on chain, so nobody can change or remove one unnoticed.',
    ),
    h('section', { class: 'card' }, h('h2', {}, 'Log checkpoint'), checkpoint),
    h('section', { class: 'card' }, h('h2', {}, 'Filter'), form),
    h('section', { class: 'card card--flush' }, h('h2', { class: 'card__title' }, 'Events'), listError.el, h('div', { class: 'table-wrap' }, table), empty, h('div', { class: 'actions' }, more)),
  );

  // The vocabulary, from the API's own description of an event.
  fetch('/openapi.json', { signal })
    .then((r) => r.json())
    .then((doc) => {
      for (const a of doc.components?.schemas?.AuditEvent?.properties?.action?.enum ?? []) action.append(h('option', { value: a }, a));
    })
    .catch(() => undefined);
  api
    .get('/v1/audit/checkpoint', { signal })
    .then((c) => checkpoint.replaceChildren(`${c.tree_size} events in the log, signed `, time(c.signed_at), ` by ${c.origin}.`))
    .catch(() => undefined);
  load(false).catch((err) => {
    if (!signal.aborted) listError.show(describeError(err));
  });
}
