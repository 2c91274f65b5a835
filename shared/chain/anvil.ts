/**
 * A local EVM node: anvil from Foundry, whose binary ships inside the npm package of the platform
 * (@foundry-rs/anvil-<os>-<arch>/bin/anvil; no install script needed). It starts in a fraction of a second.
 * Used by `npm start` when no CHAIN_RPC_URL is set, by the tests and by bench/anchor.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, constants, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Account 0 of the public development mnemonic ("test test ... junk") that anvil funds by default. Everyone knows
 * this key: it is only ever used against the embedded development chain, never when CHAIN_RPC_URL is set.
 */
export const ANVIL_DEV_PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** Account 1 of the same mnemonic (tests use it as "someone else"). */
export const ANVIL_SECOND_PRIVATE_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const ANVIL_CHAIN_ID = 31337;

const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

/** Path of the anvil binary in node_modules; made executable when the package manager dropped the mode bit. */
export function anvilBinary(): string {
  const arch = ARCH[process.arch];
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch ?? process.arch}`;
  let dir: string;
  try {
    dir = path.dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(`anvil is not installed for ${process.platform}/${process.arch} (npm package ${pkg}); set CHAIN_RPC_URL to use another node`);
  }
  const binary = path.join(dir, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(binary)) throw new Error(`anvil binary missing at ${binary}`);
  if (process.platform !== 'win32') {
    try {
      accessSync(binary, constants.X_OK);
    } catch {
      chmodSync(binary, 0o755);
    }
  }
  return binary;
}

export interface AnvilOptions {
  /** 0 (default): any free port. */
  port?: number;
  chainId?: number;
  /** Keep the chain across restarts: loaded at start, written on exit and every few seconds. */
  stateFile?: string;
  /** auto (default): a block per transaction; manual: only on evm_mine; a number: a block every N seconds. */
  mining?: 'auto' | 'manual' | number;
  startTimeoutMs?: number;
}

export interface AnvilNode {
  url: string;
  port: number;
  chainId: number;
  /** Process id of the node (or of its watchdog shell, which forwards signals to it). */
  pid: number;
  output(): string;
  /** SIGTERM (anvil writes its state file) and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Watchdog: anvil runs as the child of a small shell that ends it when our process ends, even by SIGKILL (the
 * shell's parent pid stops existing), so an embedded chain never outlives `npm start` and holds its port.
 */
const WATCHDOG = `"$0" "$@" & child=$!
trap 'kill -TERM $child 2>/dev/null; wait $child; exit 0' TERM INT
while kill -0 $child 2>/dev/null; do
  if ! kill -0 $PPID 2>/dev/null; then kill -TERM $child 2>/dev/null; wait $child; exit 0; fi
  sleep 0.5 & wait $!
done
wait $child`;

export async function startAnvil(options: AnvilOptions = {}): Promise<AnvilNode> {
  const chainId = options.chainId ?? ANVIL_CHAIN_ID;
  const args = ['--host', '127.0.0.1', '--port', String(options.port ?? 0), '--chain-id', String(chainId), '--accounts', '3', '--no-cors'];
  const mining = options.mining ?? 'auto';
  if (mining === 'manual') args.push('--no-mining');
  else if (typeof mining === 'number') args.push('--block-time', String(mining));
  if (options.stateFile) {
    mkdirSync(path.dirname(options.stateFile), { recursive: true });
    args.push('--state', options.stateFile, '--state-interval', '5');
  }
  const binary = anvilBinary();
  const child: ChildProcess =
    process.platform === 'win32'
      ? spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('/bin/sh', ['-c', WATCHDOG, binary, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`anvil did not start within ${options.startTimeoutMs ?? 15_000} ms:\n${out.slice(-2000)}`));
    }, options.startTimeoutMs ?? 15_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.length > 200_000) out = out.slice(-100_000);
      const m = /Listening on [^\s:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`anvil exited before it was ready:\n${out.slice(-2000)}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    chainId,
    pid: child.pid!,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
