/**
 * A raster cube as a GeoTIFF (float32, one sample per band, north-up, NaN as nodata), written with the `geotiff`
 * package from the cube's image (`image.ts`).
 */
import { writeArrayBuffer } from 'geotiff';
import type { DataCube } from '../cube/cube.ts';
import { crsKey } from '../values/crs.ts';
import { rasterImage, unsuitable } from './image.ts';

export async function cubeGeoTiff(cube: DataCube, maxCells: number, signal?: AbortSignal): Promise<Uint8Array> {
  const image = await rasterImage(cube, 'GTiff', maxCells, signal);
  // GeoTIFF keys name a reference system by its EPSG code.
  const code = /^EPSG:(\d+)$/.exec(crsKey(image.crs))?.[1];
  if (!code) throw unsuitable('GTiff', 'its reference system has no EPSG code');
  const geographic = code === '4326';
  const tiff = writeArrayBuffer(image.pixels, {
    width: image.width,
    height: image.height,
    ModelPixelScale: [image.dx, image.dy, 0],
    ModelTiepoint: [0, 0, 0, image.west, image.north, 0],
    GDAL_NODATA: 'nan',
    GTRasterTypeGeoKey: 1,
    ...(geographic
      ? { GTModelTypeGeoKey: 2, GeographicTypeGeoKey: 4326 }
      : { GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: Number(code) }),
  });
  return new Uint8Array(tiff);
}
