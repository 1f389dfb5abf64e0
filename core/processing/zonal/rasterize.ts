/**
 * Which cells of a grid a geometry covers, in grid coordinates (cell (r, c) is [c, c+1] × [r, r+1]):
 *
 * - pixel centre (openEO's rule): a cell belongs to a polygon when its centre (c + ½, r + ½) is inside, by the
 *   even-odd rule; a centre exactly on an edge counts when the edge is the polygon's top or left one in pixel
 *   space (rows down, columns right: north and west on a north-up grid), as rasterizers' top-left rule has it,
 *   so cells on a shared border belong to exactly one of two adjacent polygons.
 * - coverage: the exact area of the polygon inside each cell (as exactextract computes it), by Green's theorem
 *   per cell: the cell's area inside the polygon is the length of the cell's top side inside the polygon plus,
 *   for each piece of polygon edge inside the cell, −∫(y − r) dx. Only the cells the boundary crosses get edge
 *   pieces; interior cells get exactly 1 from their top side. Cost: proportional to the boundary's cells plus
 *   the covered cells, not to cells × vertices.
 *
 * Points take the cell that holds them, lines every cell they pass through (the cells whose centres are
 * nearest to the line's points, closely enough for zonal statistics).
 */
import type { Geometry } from '../values/geojson.ts';

/** Cells and their weights (1 for centre membership, the covered fraction for coverage). */
export interface CellWeights {
  cells: number[];
  weights: number[];
}

type Ring = [number, number][];

/** Signed area (shoelace), positive when counter-clockwise in grid coordinates. */
function signedArea(ring: Ring): number {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++)
    a += (ring[j]![0] - ring[i]![0]) * (ring[j]![1] + ring[i]![1]);
  return a / 2;
}

/** Rings with the exterior counter-clockwise and holes clockwise. */
function oriented(polygon: Ring[]): Ring[] {
  return polygon.map((ring, i) => {
    const ccw = signedArea(ring) > 0;
    return (i === 0) === ccw ? ring : [...ring].reverse();
  });
}

/** Crossings of the rings with the horizontal line at `y` (half-open: a vertex on the line counts as below). */
function crossings(rings: readonly Ring[], y: number): number[] {
  const xs: number[] = [];
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [x1, y1] = ring[j]!;
      const [x2, y2] = ring[i]!;
      if (y1 <= y !== y2 <= y) xs.push(x1 + ((y - y1) / (y2 - y1)) * (x2 - x1));
    }
  }
  return xs.sort((a, b) => a - b);
}

function ringBounds(rings: readonly Ring[]): [number, number, number, number] {
  let [xmin, ymin, xmax, ymax] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const ring of rings)
    for (const [x, y] of ring) {
      if (x < xmin) xmin = x;
      if (x > xmax) xmax = x;
      if (y < ymin) ymin = y;
      if (y > ymax) ymax = y;
    }
  return [xmin, ymin, xmax, ymax];
}

/** Cells whose centre is inside the polygon. */
function centreCells(rings: readonly Ring[], nx: number, ny: number, out: CellWeights): void {
  const [, ymin, , ymax] = ringBounds(rings);
  const r0 = Math.max(0, Math.floor(ymin - 0.5));
  const r1 = Math.min(ny - 1, Math.ceil(ymax - 0.5));
  for (let r = r0; r <= r1; r++) {
    const xs = crossings(rings, r + 0.5);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const c0 = Math.max(0, Math.ceil(xs[k]! - 0.5));
      const c1 = Math.min(nx, Math.ceil(xs[k + 1]! - 0.5));
      for (let c = c0; c < c1; c++) {
        out.cells.push(r * nx + c);
        out.weights.push(1);
      }
    }
  }
}

/** The area of the polygon inside each cell. */
function coverageCells(rings: readonly Ring[], nx: number, ny: number, out: CellWeights): void {
  const [xmin, ymin, xmax, ymax] = ringBounds(rings);
  const c0 = Math.max(0, Math.floor(xmin));
  const c1 = Math.min(nx - 1, Math.ceil(xmax) - 1);
  const r0 = Math.max(0, Math.floor(ymin));
  const r1 = Math.min(ny - 1, Math.ceil(ymax) - 1);
  if (c1 < c0 || r1 < r0) return;
  const width = c1 - c0 + 1;
  const area = new Float64Array(width * (r1 - r0 + 1));
  const add = (r: number, c: number, a: number) => {
    if (r >= r0 && r <= r1 && c >= c0 && c <= c1) area[(r - r0) * width + (c - c0)] += a;
  };
  // Tops of cells inside the polygon: the line y = r + 1 just above it (vertices on it count as below).
  for (let r = r0; r <= r1; r++) {
    const xs = crossings(rings, r + 1);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const [xa, xb] = [Math.max(xs[k]!, c0), Math.min(xs[k + 1]!, c1 + 1)];
      for (let c = Math.floor(xa); c < xb && c <= c1; c++) add(r, c, Math.min(xb, c + 1) - Math.max(xa, c));
    }
  }
  // Edge pieces: −∫(y − r) dx inside the cell; a horizontal piece on a grid line belongs to the row below it.
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [x1, y1] = ring[j]!;
      const [x2, y2] = ring[i]!;
      if (x1 === x2) continue; // no dx
      const ts = [0, 1];
      const cross = (a: number, b: number) => {
        const lo = Math.min(a, b);
        const hi = Math.max(a, b);
        for (let v = Math.floor(lo) + 1; v < hi; v++) ts.push((v - a) / (b - a));
      };
      cross(x1, x2);
      if (y1 !== y2) cross(y1, y2);
      ts.sort((a, b) => a - b);
      for (let k = 0; k + 1 < ts.length; k++) {
        const [ta, tb] = [ts[k]!, ts[k + 1]!];
        if (tb <= ta) continue;
        const xa = x1 + ta * (x2 - x1);
        const xb = x1 + tb * (x2 - x1);
        const ya = y1 + ta * (y2 - y1);
        const yb = y1 + tb * (y2 - y1);
        const r = Math.ceil((ya + yb) / 2) - 1;
        const c = Math.floor((xa + xb) / 2);
        add(r, c, (-(xb - xa) * (ya - r + (yb - r))) / 2);
      }
    }
  }
  for (let r = r0; r <= r1; r++)
    for (let c = c0; c <= c1; c++) {
      const a = area[(r - r0) * width + (c - c0)]!;
      if (a > 1e-15) {
        out.cells.push(r * nx + c);
        out.weights.push(Math.min(1, a));
      }
    }
}

/** Cells a segment passes through (for lines). */
function segmentCells(x1: number, y1: number, x2: number, y2: number, nx: number, ny: number, seen: Set<number>): void {
  const steps = Math.max(1, Math.ceil(Math.max(Math.abs(x2 - x1), Math.abs(y2 - y1)) * 4));
  for (let k = 0; k <= steps; k++) {
    const x = x1 + ((x2 - x1) * k) / steps;
    const y = y1 + ((y2 - y1) * k) / steps;
    const c = Math.floor(x);
    const r = Math.floor(y);
    if (c >= 0 && c < nx && r >= 0 && r < ny) seen.add(r * nx + c);
  }
}

export type Weighting = 'centre' | 'coverage';

/**
 * The cells (row * nx + col) a geometry in grid coordinates covers, with their weights. Cells outside the grid
 * are left out. MultiPolygons add their parts, which the Simple Features rules keep disjoint.
 */
export function rasterize(geometry: Geometry, nx: number, ny: number, weighting: Weighting): CellWeights {
  const out: CellWeights = { cells: [], weights: [] };
  const polygons =
    geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.type === 'MultiPolygon' ? geometry.coordinates : [];
  for (const polygon of polygons) {
    const rings = oriented(polygon.map((ring) => ring.map(([x, y]) => [x!, y!] as [number, number])));
    if (weighting === 'coverage') coverageCells(rings, nx, ny, out);
    else centreCells(rings, nx, ny, out);
  }
  // Parts of a MultiPolygon may share cells; a single polygon's cells are distinct and in order already.
  if (polygons.length > 0) return polygons.length > 1 ? merge(out) : out;
  const seen = new Set<number>();
  const points =
    geometry.type === 'Point' ? [geometry.coordinates] : geometry.type === 'MultiPoint' ? geometry.coordinates : [];
  for (const [x, y] of points) segmentCells(x!, y!, x!, y!, nx, ny, seen);
  const lines =
    geometry.type === 'LineString'
      ? [geometry.coordinates]
      : geometry.type === 'MultiLineString'
        ? geometry.coordinates
        : [];
  for (const line of lines)
    for (let i = 1; i < line.length; i++)
      segmentCells(line[i - 1]![0]!, line[i - 1]![1]!, line[i]![0]!, line[i]![1]!, nx, ny, seen);
  const cells = [...seen].sort((a, b) => a - b);
  return { cells, weights: cells.map(() => 1) };
}

/** One entry per cell (parts of a MultiPolygon may share a cell along a common border), in cell order. */
function merge(weights: CellWeights): CellWeights {
  const map = new Map<number, number>();
  weights.cells.forEach((cell, i) => map.set(cell, Math.min(1, (map.get(cell) ?? 0) + weights.weights[i]!)));
  const cells = [...map.keys()].sort((a, b) => a - b);
  return { cells, weights: cells.map((c) => map.get(c)!) };
}
