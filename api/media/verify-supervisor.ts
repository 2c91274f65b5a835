/**
 * The API process's verification supervisor (verify-supervisor-link.ts starts it, one per API process, shared by its
 * pools): a small process of its own that keeps each pool's members (verify-members.ts) with that pool's settings and
 * routes each message to the pool it names (protocol: verify-supervisor-protocol.ts). Members are forked here rather
 * than by the API because fork() copies the forking process's page tables, which stalls the event loop of a large
 * process (the API under `npm start` holds the embedded database) for as long as that takes, at every new member. One
 * for both pools rather than one each: a node process is about 40 MB however little it does.
 */
import { PoolMembers } from './verify-members.js';
import type { FromSupervisor, ToSupervisor } from './verify-supervisor-protocol.js';

const send = (msg: FromSupervisor) => {
  try {
    process.send?.(msg);
  } catch {
    // The API is gone; 'disconnect' ends this process.
  }
};

const pools = new Map<number, PoolMembers>();

async function closePool(pool: number): Promise<void> {
  const members = pools.get(pool);
  pools.delete(pool);
  await members?.close();
  send({ pool, closed: true });
}

function received(msg: ToSupervisor): void {
  if ('open' in msg) {
    pools.set(msg.pool, new PoolMembers(msg.open, (report) => send({ pool: msg.pool, ...report })));
    return;
  }
  if ('close' in msg) {
    void closePool(msg.pool);
    return;
  }
  const members = pools.get(msg.pool);
  if ('cancel' in msg) members?.cancel(msg.cancel);
  else if (members) void members.run(msg);
  else send({ pool: msg.pool, id: msg.id, failure: { code: 'verification_failed', message: 'its pool is closed' } });
}

/** Ends every pool's members and waits for them, then this process. */
async function shutdown(): Promise<void> {
  await Promise.all([...pools.values()].map((members) => members.close()));
  process.exit(0);
}

process.on('message', received);
// The API closed its last pool (SIGTERM) or is gone (even by SIGKILL: its IPC channel closes).
process.once('SIGTERM', () => void shutdown());
process.once('disconnect', () => void shutdown());
send({ ready: true });
