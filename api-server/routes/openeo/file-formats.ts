import { OUTPUT_FORMATS, type FormatParameter } from '../../../core/processing/results/outputs.ts';

type Formats = Record<string, { title: string; gis_data_types: string[]; parameters: Record<string, FormatParameter> }>;

/**
 * openEO's `/file_formats`, by GDAL driver name, listing only what is really supported. Input: what the providers
 * of this build read (CHIRPS and WorldPop COGs, ERA5-Land's remote Zarr store). Output: what `save_result` can
 * write (`core/processing/results/outputs.ts`).
 */
export function fileFormats(): { input: Formats; output: Formats } {
  return {
    input: {
      GTiff: { title: 'GeoTIFF (Cloud Optimized GeoTIFF over HTTP)', gis_data_types: ['raster'], parameters: {} },
      Zarr: { title: 'Zarr v2 store over HTTP', gis_data_types: ['raster'], parameters: {} },
    },
    output: Object.fromEntries(
      OUTPUT_FORMATS.map(({ name, title, gis_data_types, parameters = {} }) => [
        name,
        { title, gis_data_types: [...gis_data_types], parameters },
      ]),
    ),
  };
}
