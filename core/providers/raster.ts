import type { Period } from '../periods/index.ts';
import type { RasterGrid } from '../stores/raster-grid.ts';
import type { AvailabilityRule } from './availability.ts';

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
