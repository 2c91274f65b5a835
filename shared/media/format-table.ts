import { MEDIA_FORMATS } from './formats.js';

/** Where the README's table of formats starts and ends (bin/readme-formats.ts writes what is between). */
const START = '<!-- media formats: written from the registry by bin/readme-formats.ts -->';
const END = '<!-- /media formats -->';

/** Markdown puts angle-bracketed words in notes (`<svg>`) as code, not as HTML. */
const cell = (text: string) => text.replace(/<[^>]+>/g, (tag) => `\`${tag}\``).replace(/\|/g, '\\|');

/** The registry as a Markdown table: one row per format, in the registry's order. */
export function formatTable(): string {
  const rows = MEDIA_FORMATS.map((f) => `| ${f.label} | ${f.mimeType} | ${f.extensions.join(', ')} | ${f.kind} | ${cell(f.notes)} |`);
  return ['| format | MIME type | extensions | kind | what the structure check verifies |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** `readme` with the text between its markers replaced by formatTable(); throws when the markers are missing. */
export function withFormatTable(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`the README has no "${START}" ... "${END}" markers`);
  return `${readme.slice(0, start + START.length)}\n${formatTable()}\n${readme.slice(end)}`;
}
