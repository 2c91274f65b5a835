// Organisation users (admin): add with a role, change a role, remove.
import { api, seg } from './api.js';
import { cell, confirmDialog, field, h, messageBox, pageTitle, time, toast, whileBusy } from './dom.js';
import { describeError } from './messages.js';

export const ROLE_LABELS = { admin: 'Admin', signer: 'Signer', viewer: 'Viewer' };
const ROLE_HINT = 'Admins manage users and API keys and can sign; signers upload and sign; viewers only verify and see history.';

function roleSelect(props, selected) {
  return h(
    'select',
    { class: 'input', ...props },
    Object.entries(ROLE_LABELS).map(([value, label]) => h('option', { value, selected: value === selected }, label)),
  );
}

export function usersPage(ctx) {
  const { main, signal } = ctx;
  const error = messageBox('error');
  const listError = messageBox('error');
  const email = field('E-mail address', { type: 'email', name: 'email', required: true, autocomplete: 'off', maxlength: '254' });
  const password = field('Initial password', { type: 'password', name: 'password', required: true, autocomplete: 'new-password', minlength: '10' }, 'At least 10 characters. Share it with the person securely.');
  const role = field('Role', roleSelect({ name: 'role' }, 'signer'), ROLE_HINT);
  const submit = h('button', { type: 'submit', class: 'button button--primary' }, 'Add user');
  const form = h('form', { class: 'form form--grid', novalidate: true }, email, password, role, h('div', { class: 'actions' }, submit));
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'table', hidden: true, tabindex: '-1' },
    h('caption', { class: 'visually-hidden' }, 'Users of your organisation'),
    h('thead', {}, h('tr', {}, ['E-mail', 'Role', 'Added', 'Action'].map((c) => h('th', { scope: 'col' }, c)))),
    body,
  );

  async function load() {
    const { users } = await api.get('/org/users', { signal });
    body.replaceChildren(...users.map(row));
    table.hidden = false;
  }

  function row(u) {
    const isMe = u.user_id === ctx.me.user_id;
    const select = roleSelect({ 'aria-label': `Role of ${u.email}`, class: 'input input--compact' }, u.role);
    const save = h('button', { type: 'button', class: 'button button--secondary button--small', disabled: true, 'aria-label': `Change the role of ${u.email}` }, 'Change role');
    select.addEventListener('change', () => {
      save.disabled = select.value === u.role;
    });
    save.addEventListener('click', () =>
      whileBusy(save, 'Saving…', async () => {
        listError.hide();
        try {
          await api.patch(`/org/users/${seg(u.user_id)}`, { role: select.value }, { signal });
          toast(`${u.email} is now ${ROLE_LABELS[select.value] ?? select.value}.`);
          if (isMe) await ctx.refreshMe(); // one's own role changed: the menu (and access) follow
          else await load();
        } catch (err) {
          if (!signal.aborted) listError.show(describeError(err));
          select.value = u.role;
        }
      }),
    );
    const remove = h('button', { type: 'button', class: 'button button--danger button--small', 'aria-label': `Remove ${u.email}` }, 'Remove');
    remove.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: `Remove ${u.email}?`,
        body: isMe ? 'You will be signed out and lose access to this organisation.' : 'They lose access to this organisation at once.',
        confirmLabel: 'Remove user',
        danger: true,
      });
      if (!ok) {
        remove.focus();
        return;
      }
      listError.hide();
      try {
        await api.delete(`/org/users/${seg(u.user_id)}`, { signal });
        toast(`${u.email} was removed.`);
        if (isMe) {
          ctx.signOut('Your account was removed from the organisation.');
          return;
        }
        await load();
        table.focus();
      } catch (err) {
        if (!signal.aborted) listError.show(describeError(err));
      }
    });
    return h(
      'tr',
      { dataset: { userId: u.user_id } },
      cell('E-mail', [u.email, isMe ? h('span', { class: 'muted' }, ' (you)') : null], { header: true }),
      cell('Role', h('div', { class: 'role-cell' }, select, save)),
      cell('Added', time(u.created_at)),
      cell('Action', remove, { class: 'cell-actions' }),
    );
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.hide();
    const values = { email: form.elements.email.value.trim(), password: form.elements.password.value, role: form.elements.role.value };
    if (!values.email || !values.password) {
      error.show('Enter the e-mail address and an initial password.');
      (values.email ? form.elements.password : form.elements.email).focus();
      return;
    }
    if (values.password.length < 10) {
      error.show('The password must be at least 10 characters.');
      form.elements.password.focus();
      return;
    }
    await whileBusy(submit, 'Adding…', async () => {
      try {
        const user = await api.post('/org/users', values, { signal });
        form.reset();
        toast(`${user.email} was added as ${ROLE_LABELS[user.role] ?? user.role}.`);
        await load();
      } catch (err) {
        if (!signal.aborted) error.show(describeError(err));
      }
    });
  });

  main.append(
    ...pageTitle('Users', 'People in your organisation and what they may do.'),
    h('section', { class: 'card' }, h('h2', {}, 'Add a user'), error.el, form),
    h('section', { class: 'card card--flush' }, h('h2', { class: 'card__title' }, 'Members'), listError.el, h('div', { class: 'table-wrap' }, table)),
  );
  load().catch((err) => {
    if (!signal.aborted) listError.show(describeError(err));
  });
}
