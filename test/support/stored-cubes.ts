import type { Period } from '../../core/periods/index.ts';
import { RasterCubeWriter, type RasterCubeDescription } from '../../core/stores/raster-cube.ts';
import type { RasterGrid } from '../../core/stores/raster-grid.ts';

/**
 * Writes a small daily store of one variable `value` in mm under `dir`: the periods' planes from `plane(t)`, the
 * rest of the description (chunks, compressor, Zarr version, attributes) as given.
 */
export async function writeDailyStore(
  dir: string,
  periods: Period[],
  grid: RasterGrid,
  plane: (t: number) => Float32Array,
  description: Partial<RasterCubeDescription> = {},
): Promise<void> {
  const writer = await RasterCubeWriter.create(dir, {
    variable: 'value',
    units: 'mm',
    periodType: 'daily',
    periods,
    grid,
    attributes: {},
    ...description,
  });
  for (let t = 0; t < periods.length; t++) await writer.append(plane(t));
  await writer.finish();
}
