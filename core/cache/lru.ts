/**
 * The one least-recently-used cache of Stratus (the API server's caches, the authorization server's remembered checks). Each entry has a weight (its bytes, or 1 to count entries),
 * and the least recently used entries go first once the weights add up past the budget. A `Map` keeps insertion
 * order, so a hit is moved to the end and eviction walks from the start.
 */
export class Lru<V> {
  readonly #entries = new Map<string, { value: V; weight: number }>();
  readonly #budget: number;
  #weight = 0;

  constructor(budget: number) {
    this.#budget = budget;
  }

  /** The value of `key`, which becomes the most recently used; undefined when not held. */
  get(key: string): V | undefined {
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, hit);
    return hit.value;
  }

  /** Holds `value` as the most recently used entry, then lets the least recently used go past the budget. */
  set(key: string, value: V, weight = 1): void {
    this.delete(key);
    this.#entries.set(key, { value, weight });
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
