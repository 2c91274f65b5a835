// Manifest templates (admin): an organisation's defaults for the Content Credentials it signs with (creator,
// publisher, copyright, AI training and data mining choices, thumbnail, where the manifest is kept). Create, list,
// edit (each save is a new version), delete. Signers choose a template on the Sign page.
import { api, seg } from './api.js';
import { announce, cell, confirmThenRun, field, h, messageBox, pageTitle, time, toast, uid, whileBusy } from './dom.js';
import { describeError } from './messages.js';

/** The CAWG training and data mining uses, in words. */
export const TRAINING_USES = {
  'cawg.ai_generative_training': 'Training generative AI',
  'cawg.ai_training': 'Training other AI (e.g. classifiers)',
  'cawg.ai_inference': 'Use as input to AI (inference)',
  'cawg.data_mining': 'Data mining',
};
export const CHOICE_WORDS = { allowed: 'allowed', notAllowed: 'not allowed', constrained: 'allowed only on conditions' };
/** A template's manifest_placement, in words (null: embedded). */
const PLACEMENT_WORDS = { embedded: 'In the file (embedded)', remote: 'On this service (remote manifest)' };

/** Every template, following the list's pages (the API gives at most 100 at a time). */
export async function loadAllTemplates(signal) {
  const all = [];
  let cursor = null;
  do {
    const page = await api.get(`/v1/manifest-templates?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { signal });
    all.push(...page.templates);
    cursor = page.next_cursor;
  } while (cursor);
  return all.sort((a, b) => a.name.localeCompare(b.name));
}

/** What a template's defaults say, in short phrases. */
export function templateSummary(t) {
  const m = t.manifest;
  const parts = [];
  if (m.creator) parts.push(`creator ${m.creator}`);
  if (m.publisher) parts.push(`publisher ${m.publisher.name}`);
  if (m.copyrightNotice) parts.push(m.copyrightNotice);
  else if (m.copyrightHolder) parts.push(`copyright ${m.copyrightHolder.name}`);
  for (const [use, entry] of Object.entries(m.trainingMining ?? {})) parts.push(`${TRAINING_USES[use] ?? use}: ${CHOICE_WORDS[entry.use] ?? entry.use}`);
  if (m.thumbnail) parts.push('thumbnail');
  if (t.manifest_placement === 'remote') parts.push('manifest kept on this service');
  return parts;
}

const IPTC = 'http://cv.iptc.org/newscodes/digitalsourcetype/';
const SOURCE_TYPES = [
  'digitalCapture', 'computationalCapture', 'negativeFilm', 'positiveFilm', 'print', 'minorHumanEdits', 'humanEdits', 'compositeCapture',
  'algorithmicallyEnhanced', 'dataDrivenMedia', 'digitalArt', 'digitalCreation', 'virtualRecording', 'composite', 'compositeSynthetic',
  'compositeWithTrainedAlgorithmicMedia', 'trainedAlgorithmicMedia', 'algorithmicMedia', 'screenCapture', 'softwareImage',
];
const words = (code) => code.replace(/([A-Z])/g, ' $1').toLowerCase().replace(/^./, (c) => c.toUpperCase());

function select(props, options) {
  return h('select', { class: 'input', ...props }, options.map(([value, label]) => h('option', { value }, label)));
}

export function templatesPage(ctx) {
  const { main, signal } = ctx;
  const error = messageBox('error');
  const listError = messageBox('error');
  let editing = null; // the template being edited, or null when creating

  const formTitle = h('h2', { tabindex: '-1' }, 'Create a template');
  const name = field('Template name', { type: 'text', name: 'name', required: true, maxlength: '100', autocomplete: 'off' }, 'Shown to signers, e.g. “Wire desk”.');
  const creator = field('Creator', { type: 'text', name: 'creator', maxlength: '256', autocomplete: 'off' }, 'Optional. Used when the signer leaves Creator empty.');
  const description = field('Description', h('textarea', { class: 'input', name: 'description', rows: '2', maxlength: '2000' }), 'Optional default caption.');
  const sourceType = field(
    'Digital source type',
    select({ name: 'digitalSourceType' }, [['', 'Not set (digital capture)'], ...SOURCE_TYPES.map((c) => [`${IPTC}${c}`, words(c)])]),
    'How the images were made (IPTC). Not set means a camera capture.',
  );
  const publisherName = field('Publisher', { type: 'text', name: 'publisherName', maxlength: '256', autocomplete: 'organization' });
  const publisherUrl = field('Publisher website', { type: 'url', name: 'publisherUrl', maxlength: '2048', autocomplete: 'url', inputmode: 'url' }, 'Optional, http or https.');
  const holder = field('Copyright holder', { type: 'text', name: 'copyrightHolder', maxlength: '256', autocomplete: 'off' });
  const notice = field('Copyright notice', { type: 'text', name: 'copyrightNotice', maxlength: '1000', autocomplete: 'off' }, 'e.g. “© 2025 Daily Planet”.');

  // One row per training and data mining use: a choice, and the conditions when the choice is "constrained".
  const uses = Object.entries(TRAINING_USES).map(([use, label]) => {
    const choice = select({ name: `tm:${use}`, 'aria-label': label }, [
      ['', 'Not stated'],
      ['allowed', 'Allowed'],
      ['notAllowed', 'Not allowed'],
      ['constrained', 'Only on conditions'],
    ]);
    const conditions = h('input', { class: 'input', type: 'text', name: `tmc:${use}`, maxlength: '1000', autocomplete: 'off', 'aria-label': `Conditions for ${label.toLowerCase()}`, placeholder: 'Conditions, e.g. a licence or a contact' });
    const conditionsWrap = h('div', { class: 'training__conditions', hidden: true }, conditions);
    choice.addEventListener('change', () => {
      conditionsWrap.hidden = choice.value !== 'constrained';
    });
    const id = uid('use');
    choice.id = id;
    return { use, choice, conditions, conditionsWrap, el: h('div', { class: 'training__row' }, h('label', { for: id, class: 'training__label' }, label), choice, conditionsWrap) };
  });
  const training = h(
    'fieldset',
    { class: 'training' },
    h('legend', {}, 'AI training and data mining'),
    h('p', { class: 'hint' }, 'Written into each image as the standard (CAWG) training and data mining assertion. “Only on conditions” counts as not allowed unless permission is obtained.'),
    uses.map((u) => u.el),
  );
  const placement = field(
    'Where the manifest is kept',
    select({ name: 'manifestPlacement' }, Object.entries(PLACEMENT_WORDS)),
    'On this service, the file carries only a link to its Content Credentials, which verifiers fetch from here; for the formats that can carry one. A signer’s own choice on the Sign page replaces it.',
  );
  const thumbnailBox = h('input', { type: 'checkbox', name: 'thumbnail', id: uid('thumb') });
  const thumbnail = h(
    'div',
    { class: 'field field--check' },
    thumbnailBox,
    h('label', { for: thumbnailBox.id }, 'Embed a thumbnail of the image or video in its Content Credentials'),
    h('p', { class: 'hint' }, 'Makes signing large photos slower.'),
  );

  const submit = h('button', { type: 'submit', class: 'button button--primary' }, 'Create template');
  const cancel = h('button', { type: 'button', class: 'button button--secondary', hidden: true }, 'Cancel editing');
  const form = h(
    'form',
    { class: 'form template-form', novalidate: true },
    name,
    h('div', { class: 'form--pair' }, creator, sourceType),
    description,
    h('div', { class: 'form--pair' }, publisherName, publisherUrl),
    h('div', { class: 'form--pair' }, holder, notice),
    training,
    thumbnail,
    placement,
    h('div', { class: 'actions' }, submit, cancel),
  );

  const body = h('tbody');
  const table = h(
    'table',
    { class: 'table', hidden: true, tabindex: '-1' },
    h('caption', { class: 'visually-hidden' }, 'Manifest templates'),
    h('thead', {}, h('tr', {}, ['Name', 'Version', 'Defaults', 'Updated', 'Action'].map((c) => h('th', { scope: 'col' }, c)))),
    body,
  );
  const empty = h('p', { class: 'empty', hidden: true }, 'No templates yet.');

  const el = (n) => form.elements[n];

  function fill(m, manifestPlacement) {
    form.reset();
    el('name').value = editing?.name ?? '';
    el('creator').value = m.creator ?? '';
    el('description').value = m.description ?? '';
    el('digitalSourceType').value = m.digitalSourceType ?? '';
    el('publisherName').value = m.publisher?.name ?? '';
    el('publisherUrl').value = m.publisher?.url ?? '';
    el('copyrightHolder').value = m.copyrightHolder?.name ?? '';
    el('copyrightNotice').value = m.copyrightNotice ?? '';
    for (const u of uses) {
      const entry = m.trainingMining?.[u.use];
      u.choice.value = entry?.use ?? '';
      u.conditions.value = entry?.constraint_info ?? '';
      u.conditionsWrap.hidden = u.choice.value !== 'constrained';
    }
    thumbnailBox.checked = m.thumbnail === true;
    el('manifestPlacement').value = manifestPlacement ?? 'embedded';
  }

  /** The manifest defaults the form says. Parts the form does not show (a party's type) are kept from the template. */
  function read() {
    const before = editing?.manifest ?? {};
    const value = (n) => el(n).value.trim();
    const m = {};
    if (value('creator')) m.creator = value('creator');
    if (value('description')) m.description = value('description');
    if (value('digitalSourceType')) m.digitalSourceType = value('digitalSourceType');
    const party = (nameValue, url, old) => {
      const p = { name: nameValue };
      if (url) p.url = url;
      if (old?.type) p.type = old.type;
      return p;
    };
    if (value('publisherName')) m.publisher = party(value('publisherName'), value('publisherUrl'), before.publisher);
    if (value('copyrightHolder')) m.copyrightHolder = party(value('copyrightHolder'), before.copyrightHolder?.url, before.copyrightHolder);
    if (value('copyrightNotice')) m.copyrightNotice = value('copyrightNotice');
    const tm = {};
    for (const u of uses) {
      if (!u.choice.value) continue;
      tm[u.use] = { use: u.choice.value };
      const info = u.conditions.value.trim();
      if (u.choice.value === 'constrained' && info) tm[u.use].constraint_info = info;
    }
    if (Object.keys(tm).length) m.trainingMining = tm;
    if (thumbnailBox.checked) m.thumbnail = true;
    return m;
  }

  function startCreating() {
    editing = null;
    fill({}, null);
    formTitle.textContent = 'Create a template';
    submit.textContent = 'Create template';
    cancel.hidden = true;
  }

  function startEditing(t) {
    editing = t;
    fill(t.manifest, t.manifest_placement);
    formTitle.textContent = `Edit “${t.name}”`;
    submit.textContent = `Save as version ${t.version + 1}`;
    cancel.hidden = false;
    error.hide();
    formTitle.focus();
    formTitle.scrollIntoView({ block: 'start' });
  }

  cancel.addEventListener('click', () => {
    const was = editing;
    startCreating();
    error.hide();
    body.querySelector(`[data-template-id="${was?.template_id}"] button`)?.focus();
  });

  async function load() {
    const templates = await loadAllTemplates(signal);
    body.replaceChildren(...templates.map(row));
    table.hidden = templates.length === 0;
    empty.hidden = templates.length !== 0;
  }

  function row(t) {
    const edit = h('button', { type: 'button', class: 'button button--secondary button--small', 'aria-label': `Edit “${t.name}”` }, 'Edit');
    edit.addEventListener('click', () => startEditing(t));
    const remove = h('button', { type: 'button', class: 'button button--danger button--small', 'aria-label': `Delete “${t.name}”` }, 'Delete');
    remove.addEventListener('click', () => removeTemplate(t, remove));
    const summary = templateSummary(t);
    return h(
      'tr',
      { dataset: { templateId: t.template_id } },
      cell('Name', t.name, { header: true }),
      cell('Version', String(t.version)),
      cell('Defaults', summary.length ? h('ul', { class: 'plain summary' }, summary.map((s) => h('li', {}, s))) : h('span', { class: 'muted' }, 'None')),
      cell('Updated', time(t.updated_at)),
      cell('Action', h('div', { class: 'row-actions' }, edit, remove), { class: 'cell-actions' }),
    );
  }

  function removeTemplate(t, button) {
    return confirmThenRun(
      { button, table, listError, signal, describe: describeError },
      {
        title: `Delete “${t.name}”?`,
        body: 'Signers can no longer choose it. Images already signed with it keep their Content Credentials, and their jobs still name this template and version.',
        confirmLabel: 'Delete template',
      },
      async () => {
        await api.delete(`/v1/manifest-templates/${seg(t.template_id)}`, { signal });
        if (editing?.template_id === t.template_id) startCreating();
        await load();
      },
      `The template “${t.name}” was deleted.`,
    );
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.hide();
    const nameValue = el('name').value.trim();
    if (!nameValue) {
      error.show('Give the template a name.');
      el('name').focus();
      return;
    }
    const url = el('publisherUrl').value.trim();
    if (url && !el('publisherName').value.trim()) {
      error.show('Enter the publisher’s name for the website.');
      el('publisherName').focus();
      return;
    }
    // A template's settings set through the API (identity, discoverable, soft_binding) are kept: this form does not
    // edit them, and a save replaces the whole template.
    const kept = editing ? { identity: editing.identity, discoverable: editing.discoverable, soft_binding: editing.soft_binding } : {};
    const payload = { name: nameValue, manifest: read(), manifest_placement: el('manifestPlacement').value, ...kept };
    let saved = null;
    await whileBusy(submit, 'Saving…', async () => {
      try {
        saved = editing
          ? await api.put(`/v1/manifest-templates/${seg(editing.template_id)}`, payload, { signal })
          : await api.post('/v1/manifest-templates', payload, { signal });
      } catch (err) {
        if (!signal.aborted) {
          error.show(describeError(err));
          announce('The template was not saved.');
        }
      }
    });
    if (!saved) return;
    // After whileBusy, which puts the button's old label back.
    toast(editing ? `“${saved.name}” was saved as version ${saved.version}.` : `The template “${saved.name}” was created.`);
    startCreating();
    el('name').focus();
    await load().catch((err) => {
      if (!signal.aborted) listError.show(describeError(err));
    });
  });

  main.append(
    ...pageTitle('Manifest templates', 'Defaults for the Content Credentials your organisation signs with. Signers choose a template when signing; what they enter there replaces the template’s value. Saving a template makes a new version; images already signed keep what they were signed with.'),
    h('section', { class: 'card' }, formTitle, error.el, form),
    h('section', { class: 'card card--flush' }, h('h2', { class: 'card__title' }, 'Templates'), listError.el, h('div', { class: 'table-wrap' }, table), empty),
  );
  load().catch((err) => {
    if (!signal.aborted) listError.show(describeError(err));
  });
}
