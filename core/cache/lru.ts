/**
 * The one least-recently-used cache of Stratus (the API server's caches, the authorization server's remembered
 * checks). Each entry has a weight (its bytes, or 1 to count entries), and the least recently used entries go
 * first once the weights add up past the budget. A `Map` keeps insertion order: a hit moves its entry to the end,
 * and eviction walks from the start.
 *
 * A hit moves its entry only once half as many entries as the cache holds were written since it was last put at
 * the end: until then it is in the newer half and not next to go. A working set read over and over without new
 * entries is then never reordered, where a move on every hit (a delete and an insert) cost more than the rest of
 * a small `/zarr` chunk's lookup.
 */
export class Lru<V> {
  readonly #entries = new Map<string, { value: V; weight: number; placed: number }>();
  readonly #budget: number;
  #weight = 0;
  /** Entries written so far: an entry's `placed` is this count when it was last put at the end. */
  #written = 0;

  constructor(budget: number) {
    this.#budget = budget;
  }

  /** The value of `key`, which joins the newer half of the entries when it was not there; undefined when not held. */
  get(key: string): V | undefined {
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    if (2 * (this.#written - hit.placed) >= this.#entries.size) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      hit.placed = this.#written;
    }
    return hit.value;
  }

  /** Holds `value` as the newest entry, then lets the least recently used go past the budget. */
  set(key: string, value: V, weight = 1): void {
    this.delete(key);
    this.#entries.set(key, { value, weight, placed: ++this.#written });
    this.#weight += weight;
    for (const [oldest, entry] of this.#entries) {
      if (this.#weight <= this.#budget) break;
      this.#entries.delete(oldest);
      this.#weight -= entry.weight;
    }
  }

  delete(key: string): void {
    const old = this.#entries.get(key);
    if (!old) return;
    this.#entries.delete(key);
    this.#weight -= old.weight;
  }
}
