/**
 * Spatial resampling. Within one CRS, `near` picks the source pixel nearest each target centre, and the
 * aggregating methods (`average`, `min`, `max`, `med`, `sum`, `q1`, `q3`, `rms`, `mode`) reduce the valid source
 * pixels whose centres fall in each target pixel. Across CRSs only `near` is offered. The interpolating methods
 * (`bilinear`, `cubic`, `cubicspline`, `lanczos`) are refused with ProcessParameterInvalid.
 */
import { DataCube } from '../../cube/cube.ts';
import { stepOf, type Dimension } from '../../cube/dimension.ts';
import { IndexMapSource } from '../../cube/sources/index-map.ts';
import { WarpSource, WindowSource, type WindowReducer } from '../../cube/sources/window.ts';
import { invalidArgument } from '../../errors.ts';
import type { Args, ProcessContext, ProcessDefinition } from '../../process.ts';
import { crsKey, transformBetween, transformedExtent, type Crs, type Extent } from '../../values/crs.ts';
import { gridOf, type RasterGrid } from '../../zonal/grid.ts';
import { medianOf, quantileSorted } from '../../kernels/statistics.ts';

const REDUCERS: Record<string, WindowReducer> = {
  average: (v) => v.reduce((a, b) => a + b, 0) / v.length,
  min: (v) => v.reduce((a, b) => Math.min(a, b)),
  max: (v) => v.reduce((a, b) => Math.max(a, b)),
  sum: (v) => v.reduce((a, b) => a + b, 0),
  med: medianOf,
  q1: (v) =>
    quantileSorted(
      [...v].sort((a, b) => a - b),
      0.25,
    ),
  q3: (v) =>
    quantileSorted(
      [...v].sort((a, b) => a - b),
      0.75,
    ),
  rms: (v) => Math.sqrt(v.reduce((a, b) => a + b * b, 0) / v.length),
  mode: (v) => {
    const counts = new Map<number, number>();
    for (const x of v) counts.set(x, (counts.get(x) ?? 0) + 1);
    return [...counts.entries()].reduce((best, e) => (e[1] > best[1] ? e : best))[0];
  },
};

interface TargetGrid {
  x: Dimension;
  y: Dimension;
  crs: Crs | undefined;
}

function axisLabels(origin: number, step: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => origin + (i + 0.5) * step);
}

/** The source cube on the target x and y labels. */
function resampleOnto(cube: DataCube, target: TargetGrid, method: string, context: ProcessContext): DataCube {
  const grid = gridOf(cube);
  const dimensions = cube.dimensions.map((d, i) => (i === grid.xAxis ? target.x : i === grid.yAxis ? target.y : d));
  const cells = dimensions.reduce((n, d) => n * d.labels.length, 1);
  if (cells > context.limits.maxCubeCells)
    throw invalidArgument('resample_spatial', 'resolution', `the resampled cube would have ${cells} cells`);
  const chunkShape = cube.metadata.chunkShape.map((c, i) =>
    i === grid.xAxis || i === grid.yAxis ? Math.max(1, Math.min(256, dimensions[i]!.labels.length)) : c,
  );
  const metadata = { ...cube.metadata, dimensions, chunkShape };
  const axes = { x: grid.xAxis, y: grid.yAxis };
  const sameCrs = crsKey(target.crs) === crsKey(grid.crs);
  if (!sameCrs) {
    if (method !== 'near')
      throw invalidArgument('resample_spatial', 'method', `only 'near' is offered when the CRS changes`);
    const transform = transformBetween(target.crs, grid.crs)!;
    return new DataCube(
      new WarpSource(cube, metadata, axes, (row, col) => {
        const [sx, sy] = transform(target.x.labels[col] as number, target.y.labels[row] as number);
        const c = Math.floor((sx - grid.x0) / grid.dx);
        const r = Math.floor((sy - grid.y0) / grid.dy);
        return c >= 0 && c < grid.nx && r >= 0 && r < grid.ny ? [r, c] : undefined;
      }),
    );
  }
  if (method === 'near') {
    const nearest = (labels: readonly (string | number)[], origin: number, step: number, n: number) =>
      Int32Array.from(labels, (l) => {
        const k = Math.floor(((l as number) - origin) / step);
        return k >= 0 && k < n ? k : -1;
      });
    return new DataCube(
      new IndexMapSource(
        cube,
        metadata,
        cube.dimensions.map((_, i) => ({
          parent: i,
          indices:
            i === grid.xAxis
              ? nearest(target.x.labels, grid.x0, grid.dx, grid.nx)
              : i === grid.yAxis
                ? nearest(target.y.labels, grid.y0, grid.dy, grid.ny)
                : null,
        })),
      ),
    );
  }
  const reduce = REDUCERS[method];
  if (!reduce) throw invalidArgument('resample_spatial', 'method', `method '${method}' is not supported`);
  const ranges = (target: Dimension, origin: number, step: number, n: number): [number, number][] => {
    const t = stepOf(target) ?? step;
    return target.labels.map((l) => {
      const [a, b] = [((l as number) - t / 2 - origin) / step, ((l as number) + t / 2 - origin) / step].sort(
        (p, q) => p - q,
      );
      // Source pixels whose centre (k + ½) lies in [a, b).
      return [Math.max(0, Math.ceil(a! - 0.5)), Math.min(n, Math.ceil(b! - 0.5))];
    });
  };
  return new DataCube(
    new WindowSource(
      cube,
      metadata,
      axes,
      { x: ranges(target.x, grid.x0, grid.dx, grid.nx), y: ranges(target.y, grid.y0, grid.dy, grid.ny) },
      reduce,
    ),
  );
}

function checkMethod(method: string, process: string): void {
  if (method !== 'near' && !(method in REDUCERS))
    throw invalidArgument(process, 'method', `method '${method}' is not supported; use near or an aggregating method`);
}

function resampleCubeSpatial({ data, target, method }: Args, context: ProcessContext): DataCube {
  checkMethod(method as string, 'resample_cube_spatial');
  const cube = data as DataCube;
  const other = target as DataCube;
  const t = gridOf(other);
  const x = other.dimensions[t.xAxis]!;
  const y = other.dimensions[t.yAxis]!;
  const grid = gridOf(cube);
  const rename = (d: Dimension, name: string): Dimension => ({ ...d, name });
  return resampleOnto(
    cube,
    { x: rename(x, cube.dimensions[grid.xAxis]!.name), y: rename(y, cube.dimensions[grid.yAxis]!.name), crs: t.crs },
    method as string,
    context,
  );
}

function resampleSpatial({ data, resolution, projection, method, align }: Args, context: ProcessContext): DataCube {
  checkMethod(method as string, 'resample_spatial');
  const cube = data as DataCube;
  const grid = gridOf(cube);
  const [rx, ry] = Array.isArray(resolution) ? (resolution as number[]) : [resolution as number, resolution as number];
  const targetCrs: Crs | undefined = projection === null || projection === undefined ? grid.crs : (projection as Crs);
  if ((rx === 0 || rx === undefined) && (ry === 0 || ry === undefined) && crsKey(targetCrs) === crsKey(grid.crs))
    return cube;
  const extent = extentIn(grid, targetCrs);
  const sx = rx || (extent.east - extent.west) / Math.max(1, grid.nx);
  const sy = ry || (extent.north - extent.south) / Math.max(1, grid.ny);
  const nx = Math.max(1, Math.ceil((extent.east - extent.west) / sx - 1e-9));
  const ny = Math.max(1, Math.ceil((extent.north - extent.south) / sy - 1e-9));
  if (nx * ny > context.limits.maxCubeCells)
    throw invalidArgument('resample_spatial', 'resolution', `the resampled grid would have ${nx * ny} pixels`);
  const left = String(align).endsWith('left');
  const upper = String(align).startsWith('upper');
  const x0 = left ? extent.west : extent.east - nx * sx;
  const northUp = grid.dy < 0;
  const yStart = upper ? extent.north : extent.south + ny * sy;
  const xs = axisLabels(x0, sx, nx);
  const ys = northUp ? axisLabels(yStart, -sy, ny) : axisLabels(yStart - ny * sy, sy, ny);
  const xDim = cube.dimensions[grid.xAxis]!;
  const yDim = cube.dimensions[grid.yAxis]!;
  const crs = targetCrs ?? undefined;
  return resampleOnto(
    cube,
    {
      x: { ...xDim, labels: xs, step: sx, ...(crs === undefined ? {} : { crs }) },
      y: { ...yDim, labels: ys, step: northUp ? -sy : sy, ...(crs === undefined ? {} : { crs }) },
      crs: targetCrs,
    },
    method as string,
    context,
  );
}

/** The grid's outer extent in another CRS. */
function extentIn(grid: RasterGrid, crs: Crs | undefined): Extent {
  const [x1, y1] = [grid.x0 + grid.nx * grid.dx, grid.y0 + grid.ny * grid.dy];
  return transformedExtent(grid.x0, grid.y0, x1, y1, transformBetween(grid.crs, crs));
}

export const resampleProcesses: ProcessDefinition[] = [
  { id: 'resample_spatial', run: resampleSpatial },
  { id: 'resample_cube_spatial', run: resampleCubeSpatial },
];
