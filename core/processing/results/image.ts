/**
 * A raster cube as one north-up image, for the writers of image formats (GeoTIFF, PNG): the `y`/`x` dimensions
 * are its rows and columns, a `bands` dimension its samples, and every other dimension must hold one label (a
 * time step filtered or reduced to one); anything else cannot be one image.
 */
import { spatialAxes, type DataCube } from '../cube/cube.ts';
import { stepOf, type DimensionType } from '../cube/dimension.ts';
import { stridesOf } from '../cube/grid.ts';
import { materialize } from '../cube/read.ts';
import { ProcessingError } from '../errors.ts';

export interface RasterImage {
  width: number;
  height: number;
  bands: number;
  /** Pixel-interleaved values, rows from the north. */
  pixels: Float32Array;
  /** Cell size (positive), and the outer corner of the first pixel. */
  dx: number;
  dy: number;
  west: number;
  north: number;
  crs: string | number | undefined;
}

export const unsuitable = (format: string, why: string) =>
  new ProcessingError('FormatUnsuitable', `The data cube cannot be written as ${format}: ${why}.`);

/**
 * The cube's `x` and `y` axes and their steps, for a writer that keeps the dimensions of `keep` types as they are:
 * every other dimension must hold one label, and the grid a step (more than one row and column, or a declared one).
 */
export function imageGrid(cube: DataCube, format: string, keep: readonly DimensionType[]) {
  const { dimensions } = cube;
  const { x, y } = spatialAxes(cube);
  const extra = dimensions.find((d, i) => i !== x && i !== y && !keep.includes(d.type) && d.labels.length !== 1);
  if (extra)
    throw unsuitable(format, `dimension '${extra.name}' has ${extra.labels.length} labels; filter or reduce it to one`);
  const [dx, dy] = [stepOf(dimensions[x]!), stepOf(dimensions[y]!)];
  if (dx === undefined || dy === undefined) throw unsuitable(format, 'its grid has a single row or column and no step');
  return { x, y, dx, dy };
}

export async function rasterImage(
  cube: DataCube,
  format: string,
  maxCells: number,
  signal?: AbortSignal,
): Promise<RasterImage> {
  const { dimensions } = cube;
  const { x, y, dx, dy } = imageGrid(cube, format, ['bands']);
  const bandAxis = dimensions.findIndex((d) => d.type === 'bands');
  const values = await materialize(cube, maxCells, signal);
  const strides = stridesOf(cube.shape);
  const [width, height] = [dimensions[x]!.labels.length, dimensions[y]!.labels.length];
  const bands = bandAxis >= 0 ? dimensions[bandAxis]!.labels.length : 1;
  const pixels = new Float32Array(width * height * bands);
  for (let row = 0; row < height; row++) {
    // A grid stored south-up is flipped.
    const iy = dy < 0 ? row : height - 1 - row;
    for (let col = 0; col < width; col++)
      for (let b = 0; b < bands; b++)
        pixels[(row * width + col) * bands + b] =
          values[iy * strides[y]! + col * strides[x]! + (bandAxis >= 0 ? b * strides[bandAxis]! : 0)]!;
  }
  const ys = dimensions[y]!.labels as number[];
  return {
    width,
    height,
    bands,
    pixels,
    dx: Math.abs(dx),
    dy: Math.abs(dy),
    west: (dimensions[x]!.labels[0] as number) - dx / 2,
    north: Math.max(ys[0]!, ys.at(-1)!) + Math.abs(dy) / 2,
    crs: dimensions[x]!.crs ?? dimensions[y]!.crs,
  };
}
