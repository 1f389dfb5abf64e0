import type { Period } from '../periods/index.ts';
import type { AvailabilityRule } from './availability.ts';

/** A regular north-up grid in EPSG:4326: cell centres, latitudes descending (row 0 is the northern edge). */
export interface RasterGrid {
  lon: Float64Array;
  lat: Float64Array;
  /** Cell size in degrees. */
  resolution: number;
}

/** What a raster provider is asked for: the source's provider parameters and the extent to cover. */
export interface RasterRequest {
  parameters: Record<string, unknown>;
  /** xmin, ymin, xmax, ymax in degrees. */
  bbox: [number, number, number, number];
  signal: AbortSignal;
  /** The periods the run will read, in order, for providers whose grid comes from the data itself. */
  periods?: Period[];
  /** HTTP basic credentials from the source's Secret, when it names one. */
  credentials?: { username: string; password: string };
}

/** One open fetch session of a provider: the grid it delivers, and the values of one period at a time. */
export interface RasterSession {
  grid: RasterGrid;
  /** Values of `period` on `grid`, row-major (lat, lon), NaN where there is no data. */
  read(period: Period): Promise<Float32Array>;
  close?(): Promise<void>;
}

export interface RasterProvider {
  name: string;
  open(request: RasterRequest): Promise<RasterSession>;
  /** When the upstream publishes a period, given the source's provider parameters (a template may override it). */
  availability(parameters: Record<string, unknown>): AvailabilityRule;
}

/** The grid of cell centres covering `bbox` at `resolution`, aligned on multiples of the resolution. */
export function gridCovering(bbox: [number, number, number, number], resolution: number): RasterGrid {
  const [xmin, ymin, xmax, ymax] = bbox;
  // Snap outwards to the resolution so that two extents share cell edges (appends and clipping stay aligned).
  const x0 = Math.floor(xmin / resolution + 1e-9) * resolution;
  const y1 = Math.ceil(ymax / resolution - 1e-9) * resolution;
  const nx = Math.max(1, Math.round((Math.ceil(xmax / resolution - 1e-9) * resolution - x0) / resolution));
  const ny = Math.max(1, Math.round((y1 - Math.floor(ymin / resolution + 1e-9) * resolution) / resolution));
  const round = (v: number) => Math.round(v * 1e9) / 1e9;
  return {
    lon: Float64Array.from({ length: nx }, (_, i) => round(x0 + (i + 0.5) * resolution)),
    lat: Float64Array.from({ length: ny }, (_, j) => round(y1 - (j + 0.5) * resolution)),
    resolution,
  };
}
