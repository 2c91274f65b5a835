// The app shell: hash routes (a route never carries a token), the signed-in user, navigation by role,
// sign out, and the move to the sign-in page when a session ends.
import { ACCESS_KEY, REFRESH_KEY, api, onSessionEnded, tokenSubject, tokens } from './api.js';
import { registerPage, signInPage } from './auth.js';
import { auditLogPage } from './audit-log.js';
import { announce, h } from './dom.js';
import { historyPage } from './history.js';
import { keysPage } from './keys.js';
import { describeError } from './messages.js';
import { signPage } from './sign.js';
import { signingCertificatePage } from './signing-certificate.js';
import { templatesPage } from './templates.js';
import { trustAnchorsPage } from './trust-anchors.js';
import { ROLE_LABELS, usersPage } from './users.js';
import { verifyPage } from './verify.js';
import { webhooksPage } from './webhooks.js';

const ROUTES = {
  signin: { title: 'Sign in', page: signInPage, public: true },
  register: { title: 'Create an account', page: registerPage, public: true },
  sign: { title: 'Sign', page: signPage, roles: ['admin', 'signer'], nav: 'Sign' },
  verify: { title: 'Verify', page: verifyPage, nav: 'Verify' },
  history: { title: 'History', page: historyPage, nav: 'History' },
  templates: { title: 'Templates', page: templatesPage, roles: ['admin'], nav: 'Templates' },
  keys: { title: 'API keys', page: keysPage, roles: ['admin'], nav: 'API keys' },
  'trust-anchors': { title: 'Trust anchors', page: trustAnchorsPage, roles: ['admin'], nav: 'Trust anchors' },
  webhooks: { title: 'Webhooks', page: webhooksPage, roles: ['admin'], nav: 'Webhooks' },
  users: { title: 'Users', page: usersPage, roles: ['admin'], nav: 'Users' },
  audit: { title: 'Audit log', page: auditLogPage, roles: ['admin'], nav: 'Audit log' },
  certificate: { title: 'Signing certificate', page: signingCertificatePage, roles: ['admin'], nav: 'Certificate' },
};

const mainEl = document.getElementById('main');
const navEl = document.getElementById('nav');
const accountEl = document.getElementById('account');

let me = null;
let flash = null; // a message for the next page (e.g. "your session has ended")
let returnTo = null; // where to go after signing in
let current = null; // AbortController of the page on screen
let firstRender = true;

const routeName = () => (location.hash.replace(/^#\/?/, '').split(/[/?]/)[0] || '').toLowerCase();
const allowed = (route) => !route.roles || (me && route.roles.includes(me.role));
const home = () => (me && ['admin', 'signer'].includes(me.role) ? 'sign' : 'verify');

function go(name) {
  if (routeName() === name) void render();
  else location.hash = `#/${name}`;
}

function renderChrome(active) {
  navEl.hidden = !me;
  accountEl.hidden = !me;
  if (!me) {
    navEl.replaceChildren();
    accountEl.replaceChildren();
    return;
  }
  navEl.replaceChildren(
    h(
      'ul',
      { class: 'nav__list' },
      Object.entries(ROUTES)
        .filter(([, r]) => r.nav && allowed(r))
        .map(([name, r]) => h('li', {}, h('a', { href: `#/${name}`, class: 'nav__link', 'aria-current': name === active ? 'page' : undefined }, r.nav))),
    ),
  );
  const signOutButton = h('button', { type: 'button', class: 'button button--secondary button--small' }, 'Sign out');
  signOutButton.addEventListener('click', () => signOut('You have signed out.', { revoke: true }));
  accountEl.replaceChildren(
    h('span', { class: 'account__who' }, h('span', { class: 'account__email' }, me.email), h('span', { class: 'account__role' }, ROLE_LABELS[me.role] ?? me.role)),
    signOutButton,
  );
}

async function signOut(message, { revoke = false } = {}) {
  if (revoke && tokens.present) {
    // The service ends the session too, so a copy of its tokens stops working now, not when it expires; a service
    // that does not answer soon does not keep the user here.
    const ended = api.post('/auth/logout', { refresh_token: tokens.refresh ?? undefined }).catch(() => undefined);
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 3000))]);
  }
  tokens.clear();
  me = null;
  flash = message;
  returnTo = null;
  go('signin');
}

async function loadMe() {
  me = await api.get('/auth/me');
  return me;
}

async function render() {
  current?.abort();
  const controller = new AbortController();
  current = controller;

  let name = routeName();
  if (!Object.hasOwn(ROUTES, name)) name = '';

  if (!tokens.present) me = null; // storage cleared behind the app's back
  if (tokens.present && !me) {
    try {
      await loadMe();
    } catch (err) {
      if (controller.signal.aborted) return;
      // Tokens gone: the session ended (the handler has moved to sign in); render signed out.
      if (tokens.present) {
        mainEl.replaceChildren(
          h(
            'section',
            { class: 'card' },
            h('h1', { class: 'page-title', tabindex: '-1' }, 'The service is not answering'),
            h('p', { class: 'notice notice--error', role: 'alert' }, describeError(err)),
            h('button', { type: 'button', class: 'button button--primary', onclick: () => render() }, 'Try again'),
          ),
        );
        return;
      }
    }
    if (controller.signal.aborted) return;
  }

  if (!me) {
    if (!name || !ROUTES[name].public) {
      if (name) returnTo = name;
      if (routeName() !== 'signin') {
        location.replace('#/signin');
        return;
      }
      name = 'signin';
    }
  } else if (!name || ROUTES[name].public) {
    const target = returnTo && ROUTES[returnTo] && allowed(ROUTES[returnTo]) ? returnTo : home();
    returnTo = null;
    location.replace(`#/${target}`);
    return;
  }

  const route = ROUTES[name];
  document.title = `${route.title} · Media Signing Service`;
  renderChrome(name);
  mainEl.replaceChildren();
  const ctx = {
    main: mainEl,
    me,
    signal: controller.signal,
    flash,
    go,
    signOut,
    onSignedIn: async () => {
      await loadMe();
      flash = null;
      const target = returnTo && ROUTES[returnTo] && allowed(ROUTES[returnTo]) ? returnTo : home();
      returnTo = null;
      go(target);
    },
    refreshMe: async () => {
      await loadMe();
      void render();
    },
  };
  if (name !== 'signin') flash = null; // shown on sign in until the user moves on
  if (!allowed(route)) {
    mainEl.append(
      h('h1', { class: 'page-title', tabindex: '-1' }, route.title),
      h('p', { class: 'notice notice--info' }, `Your role (${ROLE_LABELS[me.role] ?? me.role}) does not include this page. An admin of your organisation can change your role.`),
    );
  } else {
    route.page(ctx);
  }
  if (!firstRender) {
    mainEl.querySelector('h1')?.focus();
    announce(route.title);
  }
  firstRender = false;
}

onSessionEnded(() => {
  if (!me && routeName() === 'signin') return;
  const name = routeName();
  if (name && ROUTES[name] && !ROUTES[name].public) returnTo = name;
  me = null;
  flash = 'Your session has ended. Please sign in again.';
  go('signin');
});

// Signing out (or in as someone else) in another tab changes the stored tokens: follow it here.
window.addEventListener('storage', (e) => {
  if (e.key !== ACCESS_KEY && e.key !== REFRESH_KEY && e.key !== null) return;
  if (!tokens.present && me) {
    me = null;
    flash = 'You signed out in another tab.';
    go('signin');
  } else if (tokens.present && (!me || tokenSubject() !== me.user_id)) {
    // Signed in (perhaps as someone else) in another tab.
    me = null;
    void render();
  }
});

// Only `#/...` fragments are routes; the skip link moves focus to the content instead of navigating.
window.addEventListener('hashchange', () => {
  if (location.hash === '' || location.hash.startsWith('#/')) void render();
});
document.querySelector('.skip-link')?.addEventListener('click', (e) => {
  e.preventDefault();
  mainEl.focus();
});
void render();
