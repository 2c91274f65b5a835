/** The ocsp process (Procfile `ocsp`): OCSP responder on OCSP_PORT, CRL / CA-certificate host on CRL_PORT, RFC 3161 TSA on TSA_PORT. */
import { runRoleProcess } from '../shared/run-main.js';
import { createKeyVault } from '../shared/vault/index.js';
import { startOcspRole } from './role.js';

runRoleProcess('ocsp', (config, knex, logger) => startOcspRole(config, knex, createKeyVault(config), logger));
