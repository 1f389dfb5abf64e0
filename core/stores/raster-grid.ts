/** A regular north-up grid in EPSG:4326: cell centres, latitudes descending (row 0 is the northern edge). */
export interface RasterGrid {
  lon: Float64Array;
  lat: Float64Array;
  /** Cell size in degrees. */
  resolution: number;
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
