/**
 * A raster cube as a Cloud Optimized GeoTIFF (float32, one sample per band, north-up, NaN as nodata, tiled with
 * overviews; `cog.ts`) from the cube's image (`image.ts`).
 */
import type { DataCube } from '../cube/cube.ts';
import { crsKey } from '../values/crs.ts';
import { writeCog } from './cog.ts';
import { rasterImage, unsuitable } from './image.ts';

export async function cubeGeoTiff(cube: DataCube, maxCells: number, signal?: AbortSignal): Promise<Uint8Array> {
  const image = await rasterImage(cube, 'GTiff', maxCells, signal);
  // GeoTIFF keys name a reference system by its EPSG code.
  const code = /^EPSG:(\d+)$/.exec(crsKey(image.crs))?.[1];
  if (!code) throw unsuitable('GTiff', 'its reference system has no EPSG code');
  return writeCog(image.width, image.height, image.bands, image.pixels, {
    dx: image.dx,
    dy: image.dy,
    west: image.west,
    north: image.north,
    epsg: Number(code),
  });
}
