/** Adds `item` to the set under `key` (made on first use); the returned function removes it, and the set once empty. */
export function addToKeyedSet<T>(sets: Map<string, Set<T>>, key: string, item: T): () => void {
  let set = sets.get(key);
  if (!set) sets.set(key, (set = new Set()));
  set.add(item);
  return () => {
    set.delete(item);
    if (set.size === 0 && sets.get(key) === set) sets.delete(key);
  };
}

/** Calls each listener with `value`; one that throws (a closed stream) does not stop the others. */
export function callEach<T>(listeners: Iterable<(value: T) => void>, value: T): void {
  for (const listener of listeners) {
    try {
      listener(value);
    } catch {
      // the others still get it
    }
  }
}
