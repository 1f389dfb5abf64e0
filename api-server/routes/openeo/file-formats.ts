type Formats = Record<string, { title: string; gis_data_types: string[]; parameters: Record<string, never> }>;

/**
 * openEO's `/file_formats`, by GDAL driver name, listing only what is really supported. Input: what the providers
 * of this build read (CHIRPS and WorldPop COGs, ERA5-Land's remote Zarr store). Output: what `save_result` can
 * write; `save_result` has no result writers before phase 2 of the engine (docs/processing.md), so none yet.
 */
export function fileFormats(): { input: Formats; output: Formats } {
  return {
    input: {
      GTiff: { title: 'GeoTIFF (Cloud Optimized GeoTIFF over HTTP)', gis_data_types: ['raster'], parameters: {} },
      Zarr: { title: 'Zarr v2 store over HTTP', gis_data_types: ['raster'], parameters: {} },
    },
    output: {},
  };
}
