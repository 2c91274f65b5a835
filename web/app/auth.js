// Sign in and register. Both store the token pair under the spec's local-storage keys and go on.
import { publicRequest, tokens } from './api.js';
import { field, h, messageBox, pageTitle, whileBusy } from './dom.js';
import { describeError } from './messages.js';

function authCard(...content) {
  return h('section', { class: 'card card--narrow' }, ...content);
}

/** Sign in. ctx.onSignedIn() loads the user and goes to where they were heading. */
export function signInPage(ctx) {
  const error = messageBox('error');
  const email = field('E-mail address', { type: 'email', name: 'email', autocomplete: 'username', required: true, maxlength: '254' });
  const password = field('Password', { type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const submit = h('button', { type: 'submit', class: 'button button--primary button--wide' }, 'Sign in');
  const form = h('form', { class: 'form', novalidate: true }, error.el, email, password, submit);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.hide();
    const body = { email: form.elements.email.value.trim(), password: form.elements.password.value };
    if (!body.email || !body.password) {
      error.show('Enter your e-mail address and password.');
      (body.email ? form.elements.password : form.elements.email).focus();
      return;
    }
    await whileBusy(submit, 'Signing in…', async () => {
      try {
        tokens.store(await publicRequest('POST', '/auth/login', { json: body }));
        await ctx.onSignedIn();
      } catch (err) {
        error.show(describeError(err));
        form.elements.password.select();
      }
    });
  });
  ctx.main.append(
    authCard(
      ...pageTitle('Sign in'),
      ctx.flash ? h('p', { class: 'notice notice--info', role: 'status' }, ctx.flash) : null,
      form,
      h('p', { class: 'alt' }, 'New here? ', h('a', { href: '#/register' }, 'Create an account')),
    ),
  );
}

export function registerPage(ctx) {
  const error = messageBox('error');
  const email = field('E-mail address', { type: 'email', name: 'email', autocomplete: 'username', required: true, maxlength: '254' });
  const password = field(
    'Password',
    { type: 'password', name: 'password', autocomplete: 'new-password', required: true, minlength: '10' },
    'At least 10 characters. A few unrelated words make a strong password.',
  );
  const org = field(
    'Organisation name',
    { type: 'text', name: 'org_name', autocomplete: 'organization', required: true, maxlength: '200' },
    'You become the admin of this new organisation and can invite others.',
  );
  const submit = h('button', { type: 'submit', class: 'button button--primary button--wide' }, 'Create account');
  const form = h('form', { class: 'form', novalidate: true }, error.el, email, password, org, submit);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.hide();
    const body = {
      email: form.elements.email.value.trim(),
      password: form.elements.password.value,
      org_name: form.elements.org_name.value.trim(),
    };
    const missing = !body.email ? 'email' : !body.password ? 'password' : !body.org_name ? 'org_name' : null;
    if (missing) {
      error.show('Please fill in every field.');
      form.elements[missing].focus();
      return;
    }
    if (body.password.length < 10) {
      error.show('The password must be at least 10 characters.');
      form.elements.password.focus();
      return;
    }
    await whileBusy(submit, 'Creating account…', async () => {
      try {
        tokens.store(await publicRequest('POST', '/auth/register', { json: body }));
        await ctx.onSignedIn();
      } catch (err) {
        error.show(describeError(err));
      }
    });
  });
  ctx.main.append(
    authCard(
      ...pageTitle('Create an account', 'Sign images with Content Credentials and check the ones you receive.'),
      form,
      h('p', { class: 'alt' }, 'Already have an account? ', h('a', { href: '#/signin' }, 'Sign in')),
    ),
  );
}
