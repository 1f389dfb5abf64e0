/**
 * A raster cube as a PNG picture: one band coloured with the default colour map between its lowest and highest
 * value, or three bands as red, green and blue (values clamped to 0 to 255); NaN is transparent. For looking at,
 * not for values: GTiff and netCDF keep them.
 */
import { colorAt, DEFAULT_COLORMAP } from '../../render/colormap.ts';
import { encodePng } from '../../render/png.ts';
import type { DataCube } from '../cube/cube.ts';
import { rasterImage, unsuitable } from './image.ts';

const byte = (v: number) => Math.max(0, Math.min(255, Math.round(v)));

export async function cubePng(cube: DataCube, maxCells: number, signal?: AbortSignal): Promise<Uint8Array> {
  const { width, height, bands, pixels } = await rasterImage(cube, 'PNG', maxCells, signal);
  if (bands !== 1 && bands !== 3) throw unsuitable('PNG', `it has ${bands} bands; a picture has one or three`);
  const rgba = new Uint8Array(width * height * 4);
  if (bands === 1) {
    let [lo, hi] = [Infinity, -Infinity];
    for (const v of pixels) if (Number.isFinite(v)) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
    const span = hi - lo || 1;
    pixels.forEach((v, i) => {
      if (Number.isFinite(v)) rgba.set([...colorAt(DEFAULT_COLORMAP, (v - lo) / span), 255], i * 4);
    });
  } else
    for (let i = 0; i < width * height; i++) {
      const [r, g, b] = [pixels[i * 3]!, pixels[i * 3 + 1]!, pixels[i * 3 + 2]!];
      if ([r, g, b].every(Number.isFinite)) rgba.set([byte(r), byte(g), byte(b), 255], i * 4);
    }
  return new Uint8Array(encodePng(width, height, rgba));
}
