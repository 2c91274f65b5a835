/** The scheduler process (Procfile `scheduler`): weekly CRL generation; safe to run more than one. */
import { openDatabase } from '../shared/db/index.js';
import { isEntryPoint } from '../shared/entry-point.js';
import { runMain } from '../shared/run-main.js';
import { createKeyVault } from '../shared/vault/index.js';
import { startSchedulerRole } from './role.js';

export { startSchedulerRole } from './role.js';

if (isEntryPoint(import.meta.url)) {
  runMain('scheduler', async (config, logger) => {
    if (!config.databaseUrl) {
      throw new Error('a separate scheduler process needs DATABASE_URL (Postgres); the embedded database is only for `npm start`');
    }
    const knex = await openDatabase(config);
    try {
      const stop = await startSchedulerRole(config, knex, createKeyVault(config), logger);
      return async () => {
        await stop();
        await knex.destroy();
      };
    } catch (err) {
      await knex.destroy();
      throw err;
    }
  });
}
