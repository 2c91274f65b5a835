/** Creates the embedded database's files in the folder given (ensurePgliteDataDir starts this process), then exits. */
import '../orphan-guard.js';
import { openPglite } from './pglite.js';

const db = openPglite(process.argv[2]!);
await db.waitReady;
await db.close();
process.exit(0);
