/**
 * A raster cube as a GeoTIFF (float, one sample per band, north-up, NaN as nodata), written with the `geotiff`
 * package: the `y`/`x` dimensions are the image, a `bands` dimension the samples, and every other dimension must
 * hold one label (a time step filtered or reduced to one); anything else cannot be one image.
 */
import { writeArrayBuffer } from 'geotiff';
import type { DataCube } from '../cube/cube.ts';
import { stepOf } from '../cube/dimension.ts';
import { materialize } from '../cube/read.ts';
import { stridesOf } from '../cube/grid.ts';
import { ProcessingError } from '../errors.ts';
import { spatialAxes } from '../processes/cube/helpers.ts';
import { crsKey } from '../values/crs.ts';

const unsuitable = (why: string) =>
  new ProcessingError('FormatUnsuitable', `The data cube cannot be written as GTiff: ${why}.`);

/** The EPSG code of a grid's reference system; GeoTIFF keys name a CRS by code. */
function epsgOf(crs: string | number | undefined): number {
  const match = /^EPSG:(\d+)$/.exec(crsKey(crs));
  if (!match) throw unsuitable('its reference system has no EPSG code');
  return Number(match[1]);
}

export async function cubeGeoTiff(cube: DataCube, maxCells: number, signal?: AbortSignal): Promise<Uint8Array> {
  const { dimensions } = cube;
  const { x, y } = spatialAxes(cube);
  const bandAxis = dimensions.findIndex((d) => d.type === 'bands');
  const extra = dimensions.find((d, i) => i !== x && i !== y && i !== bandAxis && d.labels.length !== 1);
  if (extra)
    throw unsuitable(`dimension '${extra.name}' has ${extra.labels.length} labels; filter or reduce it to one`);
  const [dx, dy] = [stepOf(dimensions[x]!), stepOf(dimensions[y]!)];
  if (dx === undefined || dy === undefined) throw unsuitable('its grid has a single row or column and no step');
  const code = epsgOf(dimensions[x]!.crs ?? dimensions[y]!.crs);
  const values = await materialize(cube, maxCells, signal);
  const strides = stridesOf(cube.shape);
  const [width, height] = [dimensions[x]!.labels.length, dimensions[y]!.labels.length];
  const bands = bandAxis >= 0 ? dimensions[bandAxis]!.labels.length : 1;
  // Pixel-interleaved, rows from the north: a grid stored south-up is flipped.
  const pixels = new Float32Array(width * height * bands);
  for (let row = 0; row < height; row++) {
    const iy = dy < 0 ? row : height - 1 - row;
    for (let col = 0; col < width; col++)
      for (let b = 0; b < bands; b++)
        pixels[(row * width + col) * bands + b] =
          values[iy * strides[y]! + col * strides[x]! + (bandAxis >= 0 ? b * strides[bandAxis]! : 0)]!;
  }
  const west = (dimensions[x]!.labels[0] as number) - dx / 2;
  const north = Math.max(dimensions[y]!.labels[0] as number, dimensions[y]!.labels.at(-1) as number) + Math.abs(dy) / 2;
  const geographic = code === 4326;
  const tiff = writeArrayBuffer(pixels, {
    width,
    height,
    ModelPixelScale: [Math.abs(dx), Math.abs(dy), 0],
    ModelTiepoint: [0, 0, 0, west, north, 0],
    GDAL_NODATA: 'nan',
    GTRasterTypeGeoKey: 1,
    ...(geographic
      ? { GTModelTypeGeoKey: 2, GeographicTypeGeoKey: 4326 }
      : { GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: code }),
  });
  return new Uint8Array(tiff);
}
