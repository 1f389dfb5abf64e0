/**
 * A raster cube as a PNG picture: one band coloured with a colour map, or three bands as red, green and blue
 * (values clamped to 0 to 255); NaN is transparent. For looking at, not for values: GTiff and netCDF keep them.
 * One band takes `save_result`'s options `colormap` (a name of core/render/colormap.ts) and `range` ([min, max],
 * the values at the two ends); without them, the display of the dataset the graph loads (`display.ts`), else
 * viridis between the picture's lowest and highest value.
 */
import { colorRamp, colormapNames, DEFAULT_COLORMAP } from '../../render/colormap.ts';
import { encodePng } from '../../render/png.ts';
import type { DataCube } from '../cube/cube.ts';
import { invalidArgument } from '../errors.ts';
import { rasterImage, unsuitable } from './image.ts';

const byte = (v: number) => Math.max(0, Math.min(255, Math.round(v)));

function styleOf(options: Record<string, unknown>): { colormap: string; range?: [number, number] } {
  const { colormap = DEFAULT_COLORMAP, range } = options;
  if (typeof colormap !== 'string' || !colormapNames.includes(colormap.toLowerCase()))
    throw invalidArgument('save_result', 'options', `PNG: colormap must be one of ${colormapNames.join(', ')}`);
  if (range === undefined) return { colormap };
  if (!Array.isArray(range) || range.length !== 2 || !range.every(Number.isFinite) || range[0] >= range[1])
    throw invalidArgument('save_result', 'options', 'PNG: range must be [min, max] with min below max');
  return { colormap, range: range as [number, number] };
}

export async function cubePng(
  cube: DataCube,
  maxCells: number,
  signal?: AbortSignal,
  options: Record<string, unknown> = {},
): Promise<Uint8Array> {
  const style = styleOf(options);
  const { width, height, bands, pixels } = await rasterImage(cube, 'PNG', maxCells, signal);
  if (bands !== 1 && bands !== 3) throw unsuitable('PNG', `it has ${bands} bands; a picture has one or three`);
  const rgba = new Uint8Array(width * height * 4);
  if (bands === 1) {
    let [lo, hi] = style.range ?? [Infinity, -Infinity];
    if (!style.range) for (const v of pixels) if (Number.isFinite(v)) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
    const span = hi - lo || 1;
    const paint = colorRamp(style.colormap);
    pixels.forEach((v, i) => {
      if (Number.isFinite(v)) paint((v - lo) / span, rgba, i * 4);
    });
  } else
    for (let i = 0; i < width * height; i++) {
      const [r, g, b] = [pixels[i * 3]!, pixels[i * 3 + 1]!, pixels[i * 3 + 2]!];
      if ([r, g, b].every(Number.isFinite)) rgba.set([byte(r), byte(g), byte(b), 255], i * 4);
    }
  return new Uint8Array(encodePng(width, height, rgba));
}
