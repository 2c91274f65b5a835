/**
 * Reading one environment variable each: a default when unset or empty, else the value checked, or a ConfigError
 * naming the variable. Every area of the configuration (shared/config/*.ts) parses with these.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export type Env = Record<string, string | undefined>;

export type NodeEnv = 'development' | 'test' | 'production';

export const MiB = 1024 * 1024;

export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

export function optional(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

export function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function url(env: Env, name: string, fallback: string | undefined, protocols: string[]): string | undefined {
  const raw = optional(env, name) ?? fallback;
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw.replace(/\/+$/, '');
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = optional(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

export function oid(env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback);
  if (!/^[0-2](\.(0|[1-9]\d*))+$/.test(v) || (/^[01]\./.test(v) && Number(v.split('.')[1]) > 39)) {
    throw new ConfigError(name, `must be a dotted object identifier such as 1.3.6.1.4.1.99999.1, got "${v}"`);
  }
  return v;
}

export function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = str(env, name, fallback);
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

export function host(env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback);
  if (!/^[A-Za-z0-9.:-]+$/.test(v)) throw new ConfigError(name, `must be a host name or IP address, got "${v}"`);
  return v;
}

/** A file the operator names: it must exist; its absolute path. */
export function existingFile(env: Env, name: string): string | undefined {
  const file = optional(env, name);
  if (file === undefined) return undefined;
  if (!existsSync(file)) throw new ConfigError(name, `${file} does not exist`);
  return path.resolve(file);
}
