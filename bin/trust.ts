/**
 * The shipped trust lists (trust/lists, see the README's "Trust lists").
 *
 *   npm run trust -- update [--from DIR] [--version TEXT] [--dir LISTS_DIR]
 *   npm run trust -- check [--dir LISTS_DIR]
 *
 * `update` refreshes every list from its published URL (or from the files in DIR), checks that each parses and
 * rewrites trust/lists/pins.json; a running service picks the new version up within TRUST_RELOAD_SECONDS.
 * `check` verifies every file against its pin. Exit code 0: done; 1: a list failed; 2: usage error.
 */
import { parseArgs } from 'node:util';
import { SHIPPED_TRUST_LISTS_DIR, TRUST_LIST_NAMES, TrustListError } from '../shared/trust/lists.js';
import { buildTrustStore } from '../shared/trust/store.js';
import { updateTrustLists } from '../shared/trust/update.js';

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { from: { type: 'string' }, version: { type: 'string' }, dir: { type: 'string' } },
  });
  const dir = values.dir ?? SHIPPED_TRUST_LISTS_DIR;
  try {
    if (positionals[0] === 'update') {
      const { pins, changed } = await updateTrustLists({ dir, from: values.from, version: values.version });
      console.log(changed.length ? `updated: ${changed.join(', ')}` : 'no list file changed');
      for (const name of TRUST_LIST_NAMES) {
        const pin = pins.lists[name];
        console.log(`${name}: ${pin.version}, issued ${pin.issued}, next update ${pin.next_update ?? 'none (frozen)'}`);
      }
      return 0;
    }
    if (positionals[0] === 'check') {
      const store = buildTrustStore({ dir, trustLists: TRUST_LIST_NAMES, trustAnchorsFile: undefined });
      console.log(`pins hold: ${store.claimAnchors.length} claim anchors, ${store.allowed.length} allowed certificates, ${store.tsaAnchors.length} TSA anchors`);
      return 0;
    }
  } catch (err) {
    if (err instanceof TrustListError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
  console.error('usage: npm run trust -- update [--from DIR] [--version TEXT] | check');
  return 2;
}

process.exitCode = await main();
