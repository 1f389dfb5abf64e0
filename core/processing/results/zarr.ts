/**
 * A raster cube as a Zarr v2 store with consolidated metadata (batch job results), in the layout of `cf-raster.ts`
 * and with the CF and GDAL metadata of the stores' own Zarr writer: `_ARRAY_DIMENSIONS`, 1-D `time`/`lat`/`lon`,
 * one float32 variable per band with `grid_mapping: spatial_ref`, a scalar `spatial_ref`, NaN as fill value, zlib.
 * Chunks near 2 MiB as the stores' (`chunkShape`); consolidated metadata is written last.
 */
import { gridMappingAttributes, LATITUDE_ATTRIBUTES, LONGITUDE_ATTRIBUTES, WGS84_WKT } from '../../stores/cf.ts';
import { directoryStore } from '../../stores/directory-store.ts';
import { chunkShape } from '../../stores/raster-cube.ts';
import type { ArraySpec, TypedValues } from '../../stores/zarr/group-writer.ts';
import { ZarrV2GroupWriter } from '../../stores/zarr/v2.ts';
import type { DataCube } from '../cube/cube.ts';
import { cfRaster, TIME_ATTRIBUTES, variableName } from './cf-raster.ts';

/** The chunk at `index` of `values` (C order over `shape`), padded with NaN at the edges as Zarr stores chunks. */
function chunkOf(values: Float32Array, shape: number[], chunks: number[], index: number[]): Float32Array {
  const out = new Float32Array(chunks.reduce((a, b) => a * b, 1)).fill(Number.NaN);
  const [cy, cx] = chunks.slice(-2) as [number, number];
  const [ny, nx] = shape.slice(-2) as [number, number];
  const [iy, ix] = index.slice(-2) as [number, number];
  const ct = shape.length === 3 ? chunks[0]! : 1;
  const it = shape.length === 3 ? index[0]! : 0;
  const nt = shape.length === 3 ? shape[0]! : 1;
  for (let t = 0; t < ct && it * ct + t < nt; t++)
    for (let row = 0; row < cy && iy * cy + row < ny; row++) {
      const from = ((it * ct + t) * ny + iy * cy + row) * nx + ix * cx;
      const width = Math.min(cx, nx - ix * cx);
      out.set(values.subarray(from, from + width), (t * cy + row) * cx);
    }
  return out;
}

function* chunkIndices(shape: number[], chunks: number[]): Generator<number[]> {
  const counts = shape.map((n, i) => Math.ceil(n / chunks[i]!));
  const index = counts.map(() => 0);
  const total = counts.reduce((a, b) => a * b, 1);
  for (let k = 0; k < total; k++) {
    yield [...index];
    for (let d = index.length - 1; d >= 0; d--) {
      if (++index[d]! < counts[d]!) break;
      index[d] = 0;
    }
  }
}

export async function cubeZarr(cube: DataCube, dir: string, maxCells: number, signal?: AbortSignal): Promise<void> {
  const raster = await cfRaster(cube, 'Zarr', maxCells, signal);
  const zarr = new ZarrV2GroupWriter(directoryStore(dir));
  await zarr.group({ Conventions: 'CF-1.8', source: 'Stratus openEO batch job' });
  const whole = async (spec: Omit<ArraySpec, 'chunks' | 'compressor' | 'fillValue'>, values: TypedValues) => {
    const full = { ...spec, chunks: spec.shape, compressor: null, fillValue: null };
    await zarr.array(full);
    await zarr.chunk(
      full,
      spec.shape.map(() => 0),
      values,
    );
  };
  const coordinates: [string, BigInt64Array | Float64Array | undefined, Record<string, unknown>][] = [
    ['time', raster.time, TIME_ATTRIBUTES],
    ['lat', raster.lat, LATITUDE_ATTRIBUTES],
    ['lon', raster.lon, LONGITUDE_ATTRIBUTES],
  ];
  for (const [name, values, attributes] of coordinates)
    if (values)
      await whole(
        {
          name,
          shape: [values.length],
          dataType: values instanceof BigInt64Array ? 'int64' : 'float64',
          dimensions: [name],
          attributes,
        },
        values,
      );
  await whole(
    {
      name: 'spatial_ref',
      shape: [],
      dataType: 'int64',
      dimensions: [],
      attributes: gridMappingAttributes(raster.geoTransform),
    },
    new BigInt64Array(1),
  );
  const [ny, nx] = raster.shape.slice(-2) as [number, number];
  const [ct, cy, cx] = chunkShape(raster.time?.length ?? 1, ny, nx);
  const chunks = raster.time ? [ct, cy, cx] : [cy, cx];
  for (const [b, label] of raster.bands.entries()) {
    const spec: ArraySpec = {
      name: variableName(label),
      shape: raster.shape,
      chunks,
      dataType: 'float32',
      compressor: { id: 'zlib', level: 1 },
      fillValue: 'NaN',
      dimensions: raster.time ? ['time', 'lat', 'lon'] : ['lat', 'lon'],
      attributes: {
        long_name: label,
        grid_mapping: 'spatial_ref',
        coordinates: 'spatial_ref',
        _CRS: { wkt: WGS84_WKT },
      },
    };
    await zarr.array(spec);
    const values = raster.variable(b);
    for (const index of chunkIndices(raster.shape, chunks)) {
      signal?.throwIfAborted();
      await zarr.chunk(spec, index, chunkOf(values, raster.shape, chunks, index));
    }
  }
  await zarr.consolidate();
}
