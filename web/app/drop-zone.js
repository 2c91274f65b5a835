// A drop zone that is also a file picker: a real <input type="file"> (reachable with Tab, opened with Enter
// or Space) whose label is the large drop target. One file at a time.
import { h, uid } from './dom.js';

/**
 * @param {{ label: string, hint: string, accept?: string, onFile: (file: File) => void, onRefuse: (why: string) => void }} options
 */
export function dropZone({ label, hint, accept, onFile, onRefuse }) {
  const input = h('input', { type: 'file', id: uid('file'), class: 'drop-zone__input', accept });
  const hintEl = h('span', { class: 'drop-zone__hint' }, hint);
  const zone = h(
    'div',
    { class: 'drop-zone' },
    input,
    h(
      'label',
      { class: 'drop-zone__label', for: input.id },
      h('span', { class: 'drop-zone__icon', 'aria-hidden': 'true' }, '⇪'),
      h('span', { class: 'drop-zone__title' }, label),
      h('span', { class: 'drop-zone__or' }, 'or ', h('span', { class: 'drop-zone__pick' }, 'choose a file')),
      hintEl,
    ),
  );

  const take = (files) => {
    if (!files || files.length === 0) return;
    if (files.length > 1) {
      onRefuse('Please drop one file at a time.');
      return;
    }
    onFile(files[0]);
  };

  input.addEventListener('change', () => {
    take(input.files);
    input.value = ''; // choosing the same file again still fires change
  });
  let depth = 0;
  zone.addEventListener('dragenter', (e) => {
    e.preventDefault();
    depth += 1;
    zone.classList.add('drop-zone--over');
  });
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
  });
  zone.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) zone.classList.remove('drop-zone--over');
  });
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    zone.classList.remove('drop-zone--over');
    take(e.dataTransfer?.files);
  });

  return {
    el: zone,
    input,
    setDisabled(disabled) {
      input.disabled = disabled;
      zone.classList.toggle('drop-zone--disabled', disabled);
    },
  };
}

// A file dropped outside a drop zone would make the browser navigate away to show it: prevent that.
for (const type of ['dragover', 'drop']) {
  window.addEventListener(type, (e) => {
    if (!(e.target instanceof Element && e.target.closest('.drop-zone'))) e.preventDefault();
  });
}
