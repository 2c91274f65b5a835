/**
 * Writes the README's table of media formats from the registry (shared/media/formats.ts), after a format was added
 * or changed; test/media/format-contract.test.ts fails while the README's table is not the registry's.
 *
 *   npx tsx bin/readme-formats.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { withFormatTable } from '../shared/media/format-table.js';

const readme = new URL('../README.md', import.meta.url);
writeFileSync(readme, withFormatTable(readFileSync(readme, 'utf8')));
