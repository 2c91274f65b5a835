// The organisation's signing certificate (admin): which certificate signs, who issued it (the service CA, for private
// deployments, or an external CA), its expiry with a warning 30 days before, the history; a certificate from an
// external CA (a CSR to send it, then the chain it issued); the CA's revocation recorded; a rotation to the service CA.
import { api, seg } from './api.js';
import { cell, confirmDialog, copyText, field, h, messageBox, pageTitle, time, toast, whileBusy } from './dom.js';
import { describeError } from './messages.js';

const STATUS = { valid: 'Signs', not_issued: 'Not issued yet', revoked: 'Revoked: nothing signs', expired: 'Expired: nothing signs', no_issuing_ca: 'No issuing CA' };
const REASONS = ['keyCompromise', 'cACompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation', 'privilegeWithdrawn', 'unspecified'];

function currentCard(status) {
  const c = status.current;
  const rows = c
    ? [
        ['Issued by', c.issued_by],
        ['Subject', c.subject],
        ['Issuer', c.issuer],
        ['Serial', h('code', {}, c.serial)],
        ['Valid until', time(c.not_after)],
      ]
    : [];
  const warning = c?.expiry_warning ? h('div', { class: 'notice notice--error', role: 'alert' }, c.expiry_warning) : null;
  return h(
    'section',
    { class: 'card' },
    h('h2', {}, 'Signing certificate'),
    h('p', {}, h('strong', {}, STATUS[status.status] ?? status.status)),
    warning,
    c ? h('dl', { class: 'facts' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])) : null,
  );
}

function historyTable(certificates) {
  return h(
    'table',
    { class: 'table' },
    h('caption', { class: 'visually-hidden' }, 'Certificate history'),
    h('thead', {}, h('tr', {}, ['Issued by', 'Subject', 'Serial', 'Valid until', 'Status'].map((t) => h('th', { scope: 'col' }, t)))),
    h(
      'tbody',
      {},
      ...certificates.map((c) =>
        h(
          'tr',
          {},
          cell('Issued by', c.issued_by, { header: true }),
          cell('Subject', c.subject),
          cell('Serial', h('code', {}, c.serial)),
          cell('Valid until', time(c.not_after)),
          cell('Status', h('span', { class: `badge ${c.status === 'valid' ? 'badge--signed' : 'badge--failed'}` }, c.status + (c.revocation_reason ? ` (${c.revocation_reason})` : ''))),
        ),
      ),
    ),
  );
}

export function signingCertificatePage(ctx) {
  const { main, signal } = ctx;
  const error = messageBox('error');
  const slot = h('div');

  async function load() {
    const [status, { requests }] = await Promise.all([api.get('/org/signing-certificate', { signal }), api.get('/org/signing-certificate/requests', { signal })]);
    slot.replaceChildren(
      currentCard(status),
      h('section', { class: 'card card--flush' }, h('h2', { class: 'card__title' }, 'History'), h('div', { class: 'table-wrap' }, historyTable(status.certificates))),
      requestCard(),
      ...requests.map(requestPanel),
      rotateCard(),
    );
  }

  function requestCard() {
    const inputs = [
      field('Common name (CN)', { name: 'CN', required: true, maxlength: '64' }),
      field('Organisation (O)', { name: 'O', required: true, maxlength: '64' }),
      field('Country (C)', { name: 'C', required: true, maxlength: '2' }, 'Two letters, e.g. GB.'),
      field('Organisational unit (OU, optional)', { name: 'OU', maxlength: '64' }),
      field('Locality (L, optional)', { name: 'L', maxlength: '64' }),
      field('State or province (ST, optional)', { name: 'ST', maxlength: '64' }),
    ];
    const submit = h('button', { type: 'submit', class: 'button button--primary' }, 'Create key and request');
    const form = h('form', { class: 'form', novalidate: true }, ...inputs, h('div', { class: 'actions' }, submit));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      error.hide();
      const subject = {};
      for (const name of ['CN', 'O', 'C', 'OU', 'L', 'ST']) {
        const value = form.elements[name].value.trim();
        if (value) subject[name] = value;
      }
      await whileBusy(submit, 'Creating…', async () => {
        try {
          await api.post('/org/signing-certificate/requests', subject, { signal });
          toast('A new key and certificate request were made: send the request to your CA.');
          await load();
        } catch (err) {
          if (!signal.aborted) error.show(describeError(err));
        }
      });
    });
    return h(
      'section',
      { class: 'card' },
      h('h2', {}, 'A certificate from an external CA'),
      h('p', {}, 'For files every validator trusts, use a CA on the C2PA Trust List. The service makes a new key in its vault and a certificate request (CSR) for it; the key never leaves the vault.'),
      form,
    );
  }

  function requestPanel(r) {
    const parts = [h('h3', {}, `Request for ${r.subject.CN}`), h('p', {}, 'Status: ', h('strong', {}, r.status), ' · made ', time(r.created_at))];
    if (r.error) parts.push(h('p', { class: 'notice notice--error' }, r.error.message));
    if (r.status === 'pending' && r.csr_pem) {
      const csr = h('textarea', { class: 'input input--mono', rows: '6', readonly: true, 'aria-label': 'Certificate request (PEM)' }, r.csr_pem);
      const copy = h('button', { type: 'button', class: 'button button--secondary' }, 'Copy request');
      copy.addEventListener('click', async () => {
        if (await copyText(r.csr_pem, csr)) toast('The certificate request was copied.');
      });
      const chain = h('textarea', { class: 'input input--mono', rows: '6', name: 'chain_pem', 'aria-label': 'Certificate chain from the CA (PEM)' });
      const accept = h('button', { type: 'submit', class: 'button button--primary' }, 'Use this certificate');
      const form = h('form', { class: 'form', novalidate: true }, field('Chain the CA issued (PEM: your certificate first, then the intermediates)', chain), h('div', { class: 'actions' }, accept));
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        error.hide();
        await whileBusy(accept, 'Checking…', async () => {
          try {
            await api.post(`/org/signing-certificate/requests/${seg(r.request_id)}/chain`, { chain_pem: chain.value }, { signal });
            toast('The certificate was accepted: your organisation signs with it from now on.');
            await load();
          } catch (err) {
            if (!signal.aborted) error.show(describeError(err));
          }
        });
      });
      parts.push(csr, h('div', { class: 'actions' }, copy), form);
    }
    if (r.certificate) {
      parts.push(h('p', {}, `${r.certificate.subject}, issued by ${r.certificate.issuer}, valid until `, time(r.certificate.not_after)));
      if (r.certificate.revoked_at) parts.push(h('p', {}, `Revoked by its CA (${r.certificate.revocation_reason}).`));
      else {
        const reason = h('select', { class: 'input', name: 'reason' }, ...REASONS.map((x) => h('option', { value: x }, x)));
        const record = h('button', { type: 'button', class: 'button button--danger' }, 'Record revocation by the CA');
        record.addEventListener('click', async () => {
          const ok = await confirmDialog({ title: 'Record the revocation?', body: 'Your organisation stops signing with this certificate at once.', confirmLabel: 'Record revocation', danger: true });
          if (!ok) return;
          try {
            await api.post(`/org/signing-certificate/requests/${seg(r.request_id)}/revoked`, { reason: reason.value }, { signal });
            toast('The revocation was recorded.');
            await load();
          } catch (err) {
            if (!signal.aborted) error.show(describeError(err));
          }
        });
        parts.push(field('Reason the CA gave', reason), h('div', { class: 'actions' }, record));
      }
    }
    return h('section', { class: 'card' }, ...parts);
  }

  function rotateCard() {
    const rotate = h('button', { type: 'button', class: 'button button--secondary' }, 'New certificate from the service CA');
    rotate.addEventListener('click', async () => {
      const ok = await confirmDialog({ title: 'Sign with the service CA?', body: 'A new key and certificate from the service CA (for private deployments): validators trust it only when given the service root.', confirmLabel: 'Issue it' });
      if (!ok) return;
      await whileBusy(rotate, 'Issuing…', async () => {
        try {
          await api.post('/org/signing-certificate/rotate', {}, { signal });
          toast('A new certificate from the service CA signs from now on.');
          await load();
        } catch (err) {
          if (!signal.aborted) error.show(describeError(err));
        }
      });
    });
    return h('section', { class: 'card' }, h('h2', {}, 'Service CA'), h('p', {}, 'The service’s own CA, for private deployments and development.'), h('div', { class: 'actions' }, rotate));
  }

  main.append(...pageTitle('Signing certificate', 'The certificate your organisation’s files are signed with, and who vouches for it.'), error.el, slot);
  load().catch((err) => {
    if (!signal.aborted) error.show(describeError(err));
  });
}
