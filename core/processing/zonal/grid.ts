/**
 * The horizontal grid of a raster cube: pixel-centre labels along `x` and `y` with a constant step. Positions
 * map into continuous grid coordinates where cell (row, col) is the unit square [col, col+1] × [row, row+1], so
 * rasterizing works on unit cells whatever the resolution, and areas in grid units are cell fractions.
 */
import { spatialAxes, type DataCube } from '../cube/cube.ts';
import { stepOf } from '../cube/dimension.ts';
import { ProcessingError } from '../errors.ts';

export interface RasterGrid {
  nx: number;
  ny: number;
  /** World x of the left edge of column 0, and the signed width of a column. */
  x0: number;
  dx: number;
  /** World y of the edge of row 0 before its centre, and the signed height of a row (negative for north-up). */
  y0: number;
  dy: number;
  crs: string | number | undefined;
  /** Axes of x and y in the cube. */
  xAxis: number;
  yAxis: number;
}

function axisGrid(
  labels: readonly (string | number)[],
  step: number | undefined,
  name: string,
): { origin: number; step: number } {
  if (labels.length === 0) return { origin: 0, step: 1 };
  const first = labels[0];
  if (typeof first !== 'number')
    throw new ProcessingError('ProcessParameterInvalid', `The ${name} labels are not coordinates.`);
  const s = step ?? 1;
  for (let i = 1; i < labels.length; i++) {
    const expected = first + i * s;
    if (Math.abs((labels[i] as number) - expected) > Math.abs(s) * 1e-6)
      throw new ProcessingError(
        'ProcessParameterInvalid',
        `The ${name} labels are not evenly spaced; a regular grid is needed.`,
      );
  }
  return { origin: first - s / 2, step: s };
}

export function gridOf(cube: DataCube): RasterGrid {
  const { x, y } = spatialAxes(cube);
  const dx = cube.dimensions[x]!;
  const dy = cube.dimensions[y]!;
  const gx = axisGrid(dx.labels, stepOf(dx), 'x');
  const gy = axisGrid(dy.labels, stepOf(dy), 'y');
  return {
    nx: dx.labels.length,
    ny: dy.labels.length,
    x0: gx.origin,
    dx: gx.step,
    y0: gy.origin,
    dy: gy.step,
    crs: dx.crs ?? dy.crs,
    xAxis: x,
    yAxis: y,
  };
}

/** World position to grid coordinates. */
export function toGrid(grid: RasterGrid, x: number, y: number): [number, number] {
  return [(x - grid.x0) / grid.dx, (y - grid.y0) / grid.dy];
}
