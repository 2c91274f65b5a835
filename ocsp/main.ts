/** The ocsp process (Procfile `ocsp`): OCSP responder on OCSP_PORT, CRL / CA-certificate host on CRL_PORT, RFC 3161 TSA on TSA_PORT. */
import { startOpsServer } from '../shared/ops/ops-server.js';
import { runRoleProcess } from '../shared/run-main.js';
import { createKeyVault } from '../shared/vault/index.js';
import { startOcspRole } from './role.js';

runRoleProcess('ocsp', async (config, knex, logger) => {
  const vault = createKeyVault(config);
  // Azure Key Vault's SDK imported now: a setting it refuses stops the start.
  await vault.load?.();
  const ops = await startOpsServer(config, logger);
  try {
    const stop = await startOcspRole(config, knex, vault, logger);
    return async () => {
      await stop();
      await ops.close();
    };
  } catch (err) {
    await ops.close();
    throw err;
  }
});
