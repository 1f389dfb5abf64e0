import { JSON_OUTPUT } from '../../../core/processing/results/json.ts';

type Formats = Record<string, { title: string; gis_data_types: string[]; parameters: Record<string, never> }>;

/**
 * openEO's `/file_formats`, by GDAL driver name, listing only what is really supported. Input: what the providers
 * of this build read (CHIRPS and WorldPop COGs, ERA5-Land's remote Zarr store). Output: what `save_result` can
 * write: JSON, the answer of `POST /result`; the file writers (GTiff, netCDF, ...) come with batch jobs.
 */
export function fileFormats(): { input: Formats; output: Formats } {
  return {
    input: {
      GTiff: { title: 'GeoTIFF (Cloud Optimized GeoTIFF over HTTP)', gis_data_types: ['raster'], parameters: {} },
      Zarr: { title: 'Zarr v2 store over HTTP', gis_data_types: ['raster'], parameters: {} },
    },
    output: {
      [JSON_OUTPUT.name]: { title: JSON_OUTPUT.title, gis_data_types: [...JSON_OUTPUT.gis_data_types], parameters: {} },
    },
  };
}
