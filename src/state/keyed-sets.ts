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
