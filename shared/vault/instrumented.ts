/**
 * Metrics for key vault calls: a decorator over any KeyVault that times ensureKey, getKey and the signEs384 of
 * every key it hands out (mss_vault_call_seconds{vault, operation: ensure_key | get_key | sign, result}) and
 * counts failures (mss_vault_errors_total{vault, operation}). `vault` is the driver's `kind` ("local", "azure").
 *
 * result: ok, error, or not_found for the VaultKeyNotFoundError that getKey (and only getKey) uses to say a key
 * is absent: that is an answer the callers expect (e.g. the OCSP role skipping a CA whose key is gone), not a
 * vault failure, so it is not counted in mss_vault_errors_total.
 */
import { vaultCallSeconds, vaultErrors } from '../metrics/metrics.js';
import { VaultKeyNotFoundError, type KeyVault, type VaultKey } from './types.js';

type Operation = 'ensure_key' | 'get_key' | 'sign';

const INSTRUMENTED = Symbol('mss.vault.instrumented');

async function timed<T>(vault: string, operation: Operation, call: () => Promise<T>): Promise<T> {
  const end = vaultCallSeconds.startTimer({ vault, operation });
  try {
    const value = await call();
    end({ result: 'ok' });
    return value;
  } catch (err) {
    if (operation === 'get_key' && err instanceof VaultKeyNotFoundError) {
      end({ result: 'not_found' });
    } else {
      end({ result: 'error' });
      vaultErrors.inc({ vault, operation });
    }
    throw err;
  }
}

/** Reads a property of `target` for a Proxy: methods stay bound to the real object (private state, no re-entry). */
function forward(target: object, prop: string | symbol): unknown {
  const value: unknown = Reflect.get(target, prop, target);
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}

/**
 * The vault with its calls measured. The result is a Proxy of `vault`, not a new object, so `instanceof
 * AzureKeyVault` / `LocalKeyVault`, `kind`, `vaultUrl` and any driver-specific method (getAzureKey, not measured)
 * keep working; the driver's own internal calls (ensureKey reading through getKey) are not counted twice.
 * Instrumenting an instrumented vault returns it unchanged.
 */
export function instrumentVault<V extends KeyVault>(vault: V): V {
  if ((vault as { [INSTRUMENTED]?: boolean })[INSTRUMENTED]) return vault;
  const kind = vault.kind;
  // One wrapper per key object: the drivers cache their keys, and callers may compare them.
  const wrappers = new WeakMap<VaultKey, VaultKey>();
  const signEs384Of = (key: VaultKey) => (data: Uint8Array) => timed(kind, 'sign', () => key.signEs384(data));
  const wrapKey = (key: VaultKey): VaultKey => {
    let wrapped = wrappers.get(key);
    if (!wrapped) {
      const signEs384 = signEs384Of(key);
      const own = Object.getOwnPropertyDescriptor(key, 'signEs384');
      // A Proxy keeps every extra property of the key visible (AzureVaultKey.keyId / version, own keys for spreads
      // and logs); a frozen key (a Proxy may not change its signEs384) gets a child object instead.
      wrapped =
        own && !own.configurable && !own.writable
          ? (Object.create(key, { signEs384: { value: signEs384, enumerable: true } }) as VaultKey)
          : new Proxy(key, { get: (target, prop) => (prop === 'signEs384' ? signEs384 : forward(target, prop)) });
      wrappers.set(key, wrapped);
    }
    return wrapped;
  };
  const ensureKey = async (name: string) => wrapKey(await timed(kind, 'ensure_key', () => vault.ensureKey(name)));
  const getKey = async (name: string) => wrapKey(await timed(kind, 'get_key', () => vault.getKey(name)));
  return new Proxy(vault, {
    get(target, prop) {
      if (prop === 'ensureKey') return ensureKey;
      if (prop === 'getKey') return getKey;
      if (prop === INSTRUMENTED) return true;
      return forward(target, prop);
    },
  });
}
