// DOM building without HTML strings: every piece of text becomes a text node or textContent, so data from
// the API or from a file can never become markup. (The page's CSP also requires Trusted Types with no
// policy, so the browser refuses innerHTML and friends outright.)

/**
 * Directional embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069) are dropped from every text the
 * app shows: a title like "photo\u202Egnp.exe" would otherwise read as "photoexe.png". The API keeps text as sent (a
 * signed manifest says what its signer wrote); right-to-left scripts still display in their own order without them.
 */
const DIRECTIONAL_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
export const shown = (text) => String(text).replace(DIRECTIONAL_CONTROLS, '');

const SAFE_URL = /^(?:#|\/(?!\/)|https?:\/\/|blob:)/i;
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction']);

/**
 * Creates an element. props: `class`, `text`, `on<event>` functions, `dataset`, boolean attributes as
 * true/false, other attributes as strings. children: nodes, strings (as text), arrays, null/false (skipped).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
    else if (name === 'text') el.textContent = shown(value);
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else if (name.startsWith('on')) {
      if (typeof value !== 'function') throw new Error(`${name} must be a function`);
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === 'value' && 'value' in el) el.value = String(value);
    else {
      if (name === 'style' || name === 'srcdoc') throw new Error(`${name} is not allowed`);
      const v = value === true ? '' : String(value);
      if (URL_ATTRIBUTES.has(name.toLowerCase()) && !SAFE_URL.test(v)) throw new Error(`unsafe URL in ${name}`);
      el.setAttribute(name, v);
    }
  }
  append(el, ...children);
  return el;
}

export function append(parent, ...children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(shown(child)));
  }
  return parent;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

let idCounter = 0;
export const uid = (prefix = 'id') => `${prefix}-${++idCounter}`;

/** A labelled form field. input: props for the <input> (or a ready element, e.g. a <select>). */
export function field(label, input, hint) {
  const control = input instanceof Node ? input : h('input', { class: 'input', ...input });
  if (!control.id) control.id = uid('f');
  let hintEl = null;
  if (hint) {
    hintEl = h('p', { class: 'hint', id: uid('hint') }, hint);
    control.setAttribute('aria-describedby', hintEl.id);
  }
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintEl);
}

/** A message area that screen readers announce when it changes. kind: error (alert) or info (status). */
export function messageBox(kind = 'error') {
  const el = h('div', { class: `notice notice--${kind}`, role: kind === 'error' ? 'alert' : 'status', hidden: true });
  return {
    el,
    show(...content) {
      clear(el);
      append(el, ...content);
      el.hidden = false;
    },
    hide() {
      clear(el);
      el.hidden = true;
    },
  };
}

export function formatBytes(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '';
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

export function formatDate(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A <time> element showing a date in the reader's locale. */
export function time(iso) {
  return h('time', { datetime: iso ?? undefined }, formatDate(iso));
}

export function announce(text) {
  const el = document.getElementById('announcer');
  if (!el) return;
  el.textContent = '';
  // A fresh text node after a tick, so the same words twice are announced twice.
  setTimeout(() => {
    el.textContent = text;
  }, 50);
}

/** A short message at the bottom of the screen (also announced). */
export function toast(text, kind = 'success') {
  const box = document.getElementById('toasts');
  if (!box) return;
  const item = h('div', { class: `toast toast--${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
  box.append(item);
  setTimeout(() => item.remove(), 6000);
}

/**
 * A modal confirmation (native <dialog>: focus stays inside, Escape cancels). Resolves true on confirm.
 */
export function confirmDialog({ title, body, confirmLabel, danger = false }) {
  return new Promise((resolve) => {
    const titleId = uid('dlg');
    const cancel = h('button', { type: 'button', class: 'button button--secondary', value: 'cancel' }, 'Cancel');
    const ok = h('button', { type: 'button', class: `button ${danger ? 'button--danger' : 'button--primary'}`, value: 'ok' }, confirmLabel);
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': titleId },
      h('h2', { id: titleId }, title),
      h('p', {}, body),
      h('div', { class: 'actions' }, cancel, ok),
    );
    let result = false;
    cancel.addEventListener('click', () => dialog.close());
    ok.addEventListener('click', () => {
      result = true;
      dialog.close();
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(result);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

/**
 * A list's destructive action (revoke, delete, remove): a modal confirmation (confirmDialog's options), then `action`
 * (the API call and the reload) with `listError` hidden; focus goes back to `button` when cancelled and to `table`
 * once done, when `toastText` is shown. A failure is shown in `listError` in words (`describe`), unless the page left.
 */
export async function confirmThenRun({ button, table, listError, signal, describe }, confirm, action, toastText) {
  if (!(await confirmDialog({ ...confirm, danger: true }))) {
    button.focus();
    return;
  }
  listError.hide();
  try {
    await action();
    toast(toastText);
    table.focus();
  } catch (err) {
    if (!signal.aborted) listError.show(describe(err));
  }
}

/** A button that shows a busy state while its async action runs and cannot be pressed twice. */
export async function whileBusy(button, busyLabel, action) {
  const label = button.textContent;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  if (busyLabel) button.textContent = busyLabel;
  try {
    return await action();
  } finally {
    const hadFocus = document.activeElement === button || document.activeElement === document.body;
    button.disabled = false;
    button.removeAttribute('aria-busy');
    button.textContent = label;
    // Disabling a focused button drops keyboard focus to the page: give it back.
    if (hadFocus && button.isConnected) button.focus();
  }
}

/** The page's heading, focusable so navigation can move focus to it. */
export function pageTitle(text, intro) {
  return [h('h1', { tabindex: '-1', class: 'page-title' }, text), intro ? h('p', { class: 'lead' }, intro) : null];
}

/**
 * A table cell labelled with its column. On phones rows become cards and the label is shown beside the
 * content, so the content is kept in one wrapper.
 */
export function cell(label, content, { header = false, class: cls } = {}) {
  return h(header ? 'th' : 'td', { 'data-label': label, scope: header ? 'row' : undefined, class: cls }, h('div', { class: 'cell' }, content));
}

/** Copies text to the clipboard; without clipboard access, selects it in `fallbackInput` so Ctrl+C copies it. */
export async function copyText(text, fallbackInput) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard access (e.g. plain http on another host): select the text so Ctrl+C copies it.
    fallbackInput.focus();
    fallbackInput.select();
    return false;
  }
}
