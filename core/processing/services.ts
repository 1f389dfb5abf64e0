/**
 * What the engine needs from the rest of Stratus, as interfaces: the collections `load_collection` opens, the
 * feature collections `load_features` reads, the sink `save_result` writes to, and a log for `inspect`. The API
 * server and the worker implement them over the stores, `FeatureCollection` resources and the result writers; tests use in-memory ones.
 */
import type { DataCube } from './cube/cube.ts';
import type { MaybeEmptyFeature } from './values/geojson.ts';

export interface BoundingBox {
  west: number;
  south: number;
  east: number;
  north: number;
  /** EPSG code or WKT2; EPSG:4326 when absent. */
  crs?: string | number | null;
}

export interface CollectionRequest {
  /** A bounding box, or polygons (pixel centres inside any of them are loaded). */
  spatialExtent: BoundingBox | MaybeEmptyFeature[] | null;
  /** Left-closed interval of instants (ms since the epoch), either end open. */
  temporalExtent: [number | null, number | null] | null;
  bands: string[] | null;
  /** A retained version of the collection, by id; the served one when absent. */
  version?: string;
}

export interface CollectionResolver {
  /**
   * The collection's cube restricted to the request, or undefined when there is no such collection. Restricting
   * is the resolver's choice (a store can skip chunks); the engine filters the returned cube again, so a resolver
   * may return more than asked. `properties` are the collection's metadata properties that `load_collection`'s
   * property filters are evaluated against.
   */
  open(
    id: string,
    request: CollectionRequest,
    signal?: AbortSignal,
  ): Promise<{ cube: DataCube; properties?: Record<string, unknown> } | undefined>;
  /**
   * The versions of a collection that `load_collection` may select with a property filter on `version`, by id:
   * the served one first, then the others newest first. Undefined for no such collection.
   */
  versions?(id: string): Promise<string[] | undefined>;
}

export interface FeatureCollectionResolver {
  /** The features of a feature collection by id (in `crs`, EPSG:4326 when absent), or undefined. */
  get(id: string, signal?: AbortSignal): Promise<{ features: MaybeEmptyFeature[]; crs?: string } | undefined>;
}

export interface ResultSink {
  /** Stores or streams a result in a format; returns what `save_result` returns (a STAC resource, or `true`). */
  save(data: unknown, format: string, options: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
  /** Output formats the sink writes (case-insensitive names); `save_result` refuses others. */
  formats(): readonly string[];
}

export interface ProcessLog {
  write(entry: { level: string; code: string; message: string; data: unknown; node: string }): void;
}

export interface EngineServices {
  collections?: CollectionResolver;
  features?: FeatureCollectionResolver;
  results?: ResultSink;
  log?: ProcessLog;
}
