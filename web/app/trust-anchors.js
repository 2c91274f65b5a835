// Trust anchors (admin): the organisation's own CAs (a partner agency's), trusted in its members' signed-in
// verifications only. Add one (PEM, pasted or from a file, and a label), list them, remove one.
import { api, seg } from './api.js';
import { cell, confirmThenRun, field, formatDate, h, messageBox, pageTitle, time, toast, whileBusy } from './dom.js';
import { describeError } from './messages.js';

export function trustAnchorsPage(ctx) {
  const { main, signal } = ctx;
  const error = messageBox('error');
  const listError = messageBox('error');
  const label = field('Label', { type: 'text', name: 'label', maxlength: '100', autocomplete: 'off' }, 'Whose CA it is, e.g. “Partner Agency”. Optional.');
  const pemInput = h('textarea', { class: 'input input--mono', name: 'pem', rows: '8', required: true, spellcheck: 'false', placeholder: '-----BEGIN CERTIFICATE-----' });
  const pem = field('CA certificate (PEM)', pemInput, 'One CA certificate, as the partner sent it. You may also pick the file below.');
  const fileInput = h('input', { class: 'input', type: 'file', accept: '.pem,.crt,.cer,application/x-pem-file' });
  const file = field('Or a certificate file', fileInput);
  fileInput.addEventListener('change', async () => {
    const picked = fileInput.files?.[0];
    if (picked) pemInput.value = await picked.text();
  });
  const submit = h('button', { type: 'submit', class: 'button button--primary' }, 'Trust this CA');
  const form = h('form', { class: 'form', novalidate: true }, label, pem, file, h('div', { class: 'actions' }, submit));
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'table', hidden: true, tabindex: '-1' },
    h('caption', { class: 'visually-hidden' }, 'Trust anchors'),
    h('thead', {}, h('tr', {}, ['Label', 'Subject', 'SHA-256 fingerprint', 'Expires', 'Added by', 'Added', 'Action'].map((c) => h('th', { scope: 'col' }, c)))),
    body,
  );
  const empty = h('p', { class: 'empty', hidden: true }, 'No trust anchors yet: only the service’s own and the public trust lists vouch for signers.');

  async function load() {
    const [{ trust_anchors: anchors }, { users }] = await Promise.all([api.get('/org/trust-anchors', { signal }), api.get('/org/users', { signal })]);
    const emails = new Map(users.map((u) => [u.user_id, u.email]));
    body.replaceChildren(...anchors.map((a) => row(a, emails)));
    table.hidden = anchors.length === 0;
    empty.hidden = anchors.length !== 0;
  }

  function row(a, emails) {
    const remove = h('button', { type: 'button', class: 'button button--danger button--small', 'aria-label': `Remove “${a.label ?? a.subject}”` }, 'Remove');
    remove.addEventListener('click', () => removeAnchor(a, remove));
    // The fingerprint in pairs, as certificate viewers show it, so it can be compared with what the partner says.
    const fingerprint = a.fingerprint_sha256.toUpperCase().match(/../g).join(':');
    return h(
      'tr',
      { dataset: { anchorId: a.anchor_id } },
      cell('Label', a.label ?? h('span', { class: 'muted' }, '—'), { header: true }),
      cell('Subject', a.subject),
      cell('SHA-256 fingerprint', h('code', { class: 'fingerprint' }, fingerprint)),
      cell('Expires', formatDate(a.not_after)),
      cell('Added by', a.added_by ? (emails.get(a.added_by) ?? 'another user') : 'a former user'),
      cell('Added', time(a.added_at)),
      cell('Action', remove, { class: 'cell-actions' }),
    );
  }

  function removeAnchor(a, button) {
    const name = a.label ?? a.subject;
    return confirmThenRun(
      { button, table, listError, signal, describe: describeError },
      { title: `Stop trusting “${name}”?`, body: 'Files signed under this CA read “not trusted” again in your organisation’s checks, from now on.', confirmLabel: 'Remove' },
      async () => {
        await api.delete(`/org/trust-anchors/${seg(a.anchor_id)}`, { signal });
        await load();
      },
      `“${name}” is no longer trusted.`,
    );
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.hide();
    const text = pemInput.value.trim();
    if (!text) {
      error.show('Paste the CA certificate, or pick its file.');
      pemInput.focus();
      return;
    }
    const given = form.elements.label.value.trim();
    await whileBusy(submit, 'Adding…', async () => {
      try {
        const added = await api.post('/org/trust-anchors', given ? { pem: text, label: given } : { pem: text }, { signal });
        form.reset();
        toast(`“${added.label ?? added.subject}” is now trusted in your organisation’s checks.`);
        await load();
      } catch (err) {
        if (!signal.aborted) error.show(describeError(err));
      }
    });
  });

  main.append(
    ...pageTitle(
      'Trust anchors',
      'Certificate authorities your organisation trusts, such as a partner agency’s own CA. Files signed under them read “Trusted” when your organisation’s members verify them while signed in; nobody else’s checks, and no public check, are affected.',
    ),
    h('section', { class: 'card' }, h('h2', {}, 'Trust a CA'), error.el, form),
    h('section', { class: 'card card--flush' }, h('h2', { class: 'card__title' }, 'Trusted CAs'), listError.el, h('div', { class: 'table-wrap' }, table), empty),
  );
  load().catch((err) => {
    if (!signal.aborted) listError.show(describeError(err));
  });
}
