/**
 * A module imported on first need and then kept: `loaded` is there synchronously once `load()` has
 * resolved. Used for what most servers never touch at start-up (the JSON Schema validator), because
 * loading it is a large part of a cold start.
 */
export interface LazyModule<T> {
  readonly loaded: T | undefined;
  /** Starts the import (once) and resolves with the module. */
  load(): Promise<T>;
}

export function lazyModule<T>(importer: () => Promise<T>): LazyModule<T> {
  let module: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    get loaded() {
      return module;
    },
    load: () => (loading ??= importer().then((m) => (module = m))),
  };
}
