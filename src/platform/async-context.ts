/**
 * AsyncLocalStorage from the runtime itself, found without a top-level `node:` import: Cloudflare
 * Workers (without Node compatibility) and browsers-like hosts have no `node:async_hooks`, and a
 * static import would stop the whole package from loading there. Where no implementation exists the
 * framework still runs; only `getContext()` is unavailable (handlers receive `ctx` as an argument).
 */
export interface AsyncStorage<T> {
  getStore(): T | undefined;
  run<A, R>(store: T, fn: (arg: A) => R, arg: A): R;
}

type StorageClass = new <T>() => AsyncStorage<T>;

interface Host {
  AsyncLocalStorage?: StorageClass;
  process?: { getBuiltinModule?: (id: string) => { AsyncLocalStorage?: StorageClass } | undefined };
}

/** Synchronous ways first: a global (some runtimes expose one), then `process.getBuiltinModule` (Node >= 20.16, Bun, Deno, Workers with nodejs_compat). */
function fromHost(): StorageClass | undefined {
  const host = globalThis as Host;
  if (typeof host.AsyncLocalStorage === 'function') return host.AsyncLocalStorage;
  try {
    const found = host.process?.getBuiltinModule?.('node:async_hooks')?.AsyncLocalStorage;
    if (typeof found === 'function') return found;
  } catch {
    // a getBuiltinModule that refuses the id: fall through to the import
  }
  return undefined;
}

/** Older runtimes without getBuiltinModule: a dynamic import, which fails cleanly where the module does not exist. */
const Storage: StorageClass | undefined =
  fromHost() ??
  (await import('node:async_hooks').then(
    (m) => m.AsyncLocalStorage as unknown as StorageClass,
    () => undefined,
  ));

/** True where the runtime provides AsyncLocalStorage (so `getContext()` works). */
export const hasAsyncContext = Storage !== undefined;

/** A storage for one kind of value; where the runtime has none, `run` just calls `fn` and `getStore` finds nothing. */
export function createAsyncStorage<T>(): AsyncStorage<T> {
  if (Storage !== undefined) return new Storage<T>();
  return { getStore: () => undefined, run: (_store, fn, arg) => fn(arg) };
}
