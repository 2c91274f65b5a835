/**
 * A new DATA_DIR's embedded database is a copy of one empty database made once per installed PGlite (initdb is
 * seconds of WASM; a copy is not): each copy is a database of its own, the empty one stays empty, and an existing
 * database is never replaced.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ensurePgliteDataDir, ensurePgliteTemplate, openPglite } from '../../shared/db/pglite.js';

async function tables(dir: string): Promise<string[]> {
  const db = openPglite(dir);
  try {
    const { rows } = await db.query<{ name: string }>("select table_name as name from information_schema.tables where table_schema = 'public' order by 1");
    return rows.map((r) => r.name);
  } finally {
    await db.close();
  }
}

describe('embedded database: new data directories copied from one empty database', function () {
  this.timeout(120_000);
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'pglite-template-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('gives each new directory a database of its own, leaves the empty one empty and an existing one as it is', async () => {
    const template = await ensurePgliteTemplate();
    expect(template, 'the empty database kept in node_modules/.cache').to.be.a('string');
    const first = path.join(root, 'first', 'pgdata');
    const second = path.join(root, 'second', 'pgdata');

    await ensurePgliteDataDir(first);
    const db = openPglite(first);
    await db.exec('create table kept (note text); insert into kept values ($$first$$)');
    await db.close();

    await ensurePgliteDataDir(second);
    // Made after the first directory's table: the empty database was not written through its copy.
    expect(await tables(second), 'a second copy').to.deep.equal([]);

    await ensurePgliteDataDir(first);
    const again = openPglite(first);
    expect((await again.query<{ note: string }>('select note from kept')).rows).to.deep.equal([{ note: 'first' }]);
    await again.close();

    // Nothing half-made left beside the copies.
    expect(readdirSync(path.join(root, 'first'))).to.deep.equal(['pgdata']);
    expect(readdirSync(path.join(root, 'second'))).to.deep.equal(['pgdata']);
    expect(existsSync(path.join(second, 'PG_VERSION'))).to.equal(true);
  });
});
