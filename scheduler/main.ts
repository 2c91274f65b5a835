/** The scheduler process (Procfile `scheduler`): weekly CRL generation; safe to run more than one. */
import { runRoleProcess } from '../shared/run-main.js';
import { createKeyVault } from '../shared/vault/index.js';
import { startSchedulerRole } from './role.js';

runRoleProcess('scheduler', (config, knex, logger) => startSchedulerRole(config, knex, createKeyVault(config), logger));
