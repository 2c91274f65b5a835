import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startRole, type RoleProcess } from './processes.js';

/** A free loopback port (the API logs the port it was given, so it is chosen here rather than with PORT=0). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The environment of an API process that takes hostile traffic (the request fuzzer, bench/hostile): its own database,
 * DATA_DIR and port, cheap password hashes, and the rate limits out of the way, so that each request is judged (or
 * timed) for itself.
 */
export function hostileTrafficEnv(options: { databaseUrl: string; redisUrl: string; dataDir: string; port: number; queuePrefix: string }): Record<string, string> {
  return {
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    QUEUE_PREFIX: options.queuePrefix,
    DATA_DIR: options.dataDir,
    PORT: String(options.port),
    JWT_SECRET: randomBytes(24).toString('hex'),
    BCRYPT_ROUNDS: '4',
    AUTH_RATE_LIMIT: '1000000',
    PUBLIC_RATE_LIMIT: '1000000',
    LOGIN_FAILURE_LIMIT: '1000000',
  };
}

/** The web role (api/main.ts) as its own OS process on `port`; resolves once it listens. */
export function startApiProcess(env: Record<string, string>): Promise<RoleProcess> {
  return startRole('api/main.ts', { NODE_ENV: 'test', LOG_LEVEL: 'info', OPS_PORT: '0', ...env }, /API listening/);
}

/** One open descriptor of a process, described well enough to tell what it is and who opened it. */
export interface Descriptor {
  fd: string;
  /** readlink of /proc/<pid>/fd/<n>: a path, `socket:[inode]`, `pipe:[inode]`, `anon_inode:[eventpoll]`... */
  target: string;
  /** For a TCP socket: its local and remote ports. */
  tcp?: { localPort: number; remotePort: number };
}

function tcpSockets(pid: number): Map<string, { localPort: number; remotePort: number }> {
  const byInode = new Map<string, { localPort: number; remotePort: number }>();
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      const port = (addr: string) => parseInt(addr.split(':')[1] ?? '', 16);
      byInode.set(cols[9]!, { localPort: port(cols[1]!), remotePort: port(cols[2]!) });
    }
  }
  return byInode;
}

/** The open descriptors of process `pid` (Linux /proc); a descriptor closed while being read is left out. */
export function openDescriptors(pid: number): Descriptor[] {
  const dir = `/proc/${pid}/fd`;
  const tcp = tcpSockets(pid);
  const out: Descriptor[] = [];
  for (const fd of readdirSync(dir)) {
    let target: string;
    try {
      target = readlinkSync(path.join(dir, fd));
    } catch {
      continue;
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    const info = inode ? tcp.get(inode) : undefined;
    out.push(info ? { fd, target, tcp: info } : { fd, target });
  }
  return out;
}

/** The processes below `pid` (children, their children...), from /proc. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** Descriptors that processes below `pid` (a verification pool, say) hold on files under `dir`. */
export function descendantFilesUnder(pid: number, dir: string): Descriptor[] {
  return descendantsOf(pid).flatMap((child) => {
    try {
      return openDescriptors(child).filter((d) => d.target.startsWith(dir)).map((d) => ({ ...d, fd: `${child}/${d.fd}` }));
    } catch {
      return [];
    }
  });
}
