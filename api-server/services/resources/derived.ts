/**
 * What a list route makes of a cache's list (a filter, a mapping, a page's bytes), made once per change of the
 * cache rather than once per request. `ResourceCache.list` answers the same array until the kind changes and never
 * changes an array it answered, so the array itself is the key: a derivation of it stays right for as long as it is
 * answered, and goes with it. A list read from the store instead (`ResourceCache.list`'s fallback) is a new array
 * each time, so nothing stale can be answered from here.
 */
const derivations = new WeakMap<readonly object[], Map<unknown, unknown>>();

/** `derive(items)`, made once per array and `derive` (which must be one function, not a new closure per call). */
export function derived<T extends object, V>(items: readonly T[], derive: (items: readonly T[]) => V): V {
  let made = derivations.get(items);
  if (!made) derivations.set(items, (made = new Map()));
  if (!made.has(derive)) made.set(derive, derive(items));
  return made.get(derive) as V;
}
