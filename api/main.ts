import { openDatabase } from '../shared/db/index.js';
import { runMain } from '../shared/run-main.js';
import { startApi } from './server.js';

runMain('web', async (config, logger) => {
  const knex = await openDatabase(config);
  const api = await startApi(config, knex, logger);
  return async () => {
    await api.close();
    await knex.destroy();
  };
});
