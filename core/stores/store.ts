/**
 * The store contract: what every part of Stratus reads and writes stores through. Backends implement it, one per
 * file (a directory: `directory-store.ts`; an Icechunk session: `icechunk/store.ts`; versions: `zarr/version.ts`,
 * `netcdf/version.ts`, `icechunk/version.ts`); `open.ts` chooses among them. Nothing here imports a backend.
 *
 * Keys are Zarr keys relative to the store's root, `/`-separated (`zarr.json`, `lat/.zarray`, `value/c/0/1/2`). A
 * missing key reads as `undefined`, never as an error (zarrita's rule): a caller that needs the key raises its own.
 */

/** A byte range of a key: `length` bytes from `offset`, or the last `suffixLength` bytes. */
export type RangeQuery = { offset: number; length: number } | { suffixLength: number };

export interface ReadableStore {
  get(key: string): Promise<Uint8Array | undefined>;
  /**
   * Each `get` returns its bytes in a buffer of their own that the store keeps nothing of (a file read afresh, no
   * cache): a reader may keep them as decoded values, change them or transfer them to a worker without a copy.
   */
  readonly freshBytes?: boolean;
  /** Backends that can read part of a key without the rest implement this. */
  getRange?(key: string, range: RangeQuery): Promise<Uint8Array | undefined>;
}

/** Where keys are written: each `set` is durable (a flushed file) or part of a transaction its backend commits. */
export interface WritableStore {
  set(key: string, value: Uint8Array | string): Promise<void>;
}

/** What a complete cube covers: the outer edges of its grid, and its first and last period. */
export interface Coverage {
  spatial: { xmin: number; ymin: number; xmax: number; ymax: number };
  temporal: { start: string | null; end: string | null };
}

/** Where an ingestion puts periods, whatever the stored format: append in order, then finish. */
export interface CubeSink {
  append(values: Float32Array): Promise<void>;
  finish(): Promise<Coverage>;
  /**
   * Resolves once none of the sink's writes is in flight (a writer may still be writing the blocks it was handed
   * when an append fails or a run is cancelled); never rejects. A version is discarded only after it.
   */
  settled(): Promise<void>;
}

/** Where a published version lives: its store path, and for Icechunk the snapshot that holds it. */
export interface PublishedVersion {
  path: string;
  snapshot?: string;
}

/**
 * A new version being written. Nothing of it is visible to readers until `publish`, which makes the finished
 * version readable in one atomic step; `discard` drops an unfinished one.
 */
export interface VersionWriter {
  sink: CubeSink;
  publish(): Promise<PublishedVersion>;
  discard(): Promise<void>;
}

/**
 * A version written by several workers at once, each one part of its periods (a split ingestion): the parts write
 * disjoint chunks, and whichever finishes the last part completes the metadata and publishes.
 */
export interface VersionParts {
  /** The periods [from, to) of part `index`. */
  periodsOf(index: number): { from: number; to: number };
  /** The sink of part `index`: it takes exactly that part's periods, in order. */
  openPart(index: number): CubeSink;
  /** Writes the metadata of the version whose every part finished, and publishes it. */
  complete(): Promise<PublishedVersion & { coverage: Coverage }>;
}

/**
 * Where a new version's periods come from (indexes into its periods): the fetched ones are [from, to), the
 * previous version's start at `offset`; together they are every period, with no gap. Absent, the fetched periods
 * follow the previous version's (an append).
 */
export interface Splice {
  offset: number;
  from: number;
  to: number;
}

/**
 * The committed version a new version is spliced from: its directory, for Icechunk the snapshot in that
 * repository, and where its periods and the fetched ones go.
 */
export interface PreviousVersion {
  dir: string;
  snapshot?: string;
  splice?: Splice;
}

/** How a Dataset asks its versions to be stored (`spec.format`, `spec.zarrVersion`). */
export interface StoreFormat {
  format: string;
  zarrVersion: number;
}
