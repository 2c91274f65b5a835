/** The ocsp process (Procfile `ocsp`): OCSP responder on OCSP_PORT, CRL / CA-certificate host on CRL_PORT. */
import { openDatabase } from '../shared/db/index.js';
import { isEntryPoint } from '../shared/entry-point.js';
import { runMain } from '../shared/run-main.js';
import { createKeyVault } from '../shared/vault/index.js';
import { startOcspRole } from './role.js';

export { startOcspRole, type OcspRole, type OcspRoleOptions } from './role.js';

if (isEntryPoint(import.meta.url)) {
  runMain('ocsp', async (config, logger) => {
    if (!config.databaseUrl) {
      throw new Error('a separate ocsp process needs DATABASE_URL (Postgres); the embedded database is only for `npm start`');
    }
    const knex = await openDatabase(config);
    try {
      const stop = await startOcspRole(config, knex, createKeyVault(config), logger);
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
