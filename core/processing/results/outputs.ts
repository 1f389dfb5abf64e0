/**
 * The output formats of a run's value: what `save_result` accepts, `/file_formats` lists and `POST /result`
 * answers, one list. Each says how it writes a value and how the answer is typed and named.
 */
import { isCube } from '../cube/cube.ts';
import { ProcessingError } from '../errors.ts';
import { cubeGeoTiff } from './gtiff.ts';
import { resultJson } from './json.ts';
import { cubePng } from './png.ts';
import { cubeNetcdf } from './netcdf.ts';
import { cubeZarr, type WriterShare } from './zarr.ts';
import { CHAP_PERIOD_TYPES, CONTINUITY_POLICIES, vectorChapCsv } from './chap-csv.ts';
import { vectorDhis2Json } from './dhis2-json.ts';
import { vectorCsv, vectorGeoJson, vectorGeoParquet } from './vector.ts';

/** A `save_result` option of a format, as openEO's `/file_formats` describes one. */
export interface FormatParameter {
  description: string;
  schema: Record<string, unknown>;
  optional: true;
  default?: unknown;
}

export interface OutputFormat {
  /** GDAL's name of the format, as openEO names formats. */
  name: string;
  title: string;
  gis_data_types: readonly string[];
  mediaType: string;
  /** The file name of a result in this format, for `Content-Disposition`. */
  fileName: string;
  /** The options `/file_formats` lists, by name. */
  parameters?: Record<string, FormatParameter>;
  /**
   * The file's bytes; `options` are `save_result`'s format options; `warn` takes what the run's log should say
   * about a file written anyway (chap-csv's gaps).
   */
  write(
    value: unknown,
    maxCells: number,
    signal?: AbortSignal,
    options?: Record<string, unknown>,
    warn?: (message: string) => void,
  ): Promise<string | Uint8Array>;
  /**
   * A format stored as a directory of files (Zarr): writes them under `dir`, which exists and is empty. Batch jobs
   * save through it when present; a synchronous run cannot answer such a format.
   */
  writeDirectory?(
    value: unknown,
    dir: string,
    maxCells: number,
    signal?: AbortSignal,
    options?: Record<string, unknown>,
    /** This writer's share when several write the directory at once (a split batch job). */
    share?: WriterShare,
  ): Promise<void>;
}

export const OUTPUT_FORMATS: readonly OutputFormat[] = [
  {
    name: 'JSON',
    title: 'JSON: values as they are, data cubes as their dimensions, labels and nested values',
    gis_data_types: ['raster', 'vector', 'table', 'other'],
    mediaType: 'application/json',
    fileName: 'result.json',
    write: resultJson,
  },
  {
    name: 'GTiff',
    title: 'GeoTIFF: one float32 image, a band per label of the bands dimension, NaN as nodata',
    gis_data_types: ['raster'],
    mediaType: 'image/tiff; application=geotiff',
    fileName: 'result.tif',
    write: (value, maxCells, signal) => cubeGeoTiff(cubeOnly(value, 'GTiff', 'raster'), maxCells, signal),
  },
  {
    name: 'netCDF',
    title: 'netCDF-4 (CF-1.8): a float32 variable per band over time, lat and lon, NaN as fill value; EPSG:4326 grids',
    gis_data_types: ['raster'],
    mediaType: 'application/x-netcdf',
    fileName: 'result.nc',
    write: (value, maxCells, signal) => cubeNetcdf(cubeOnly(value, 'netCDF', 'raster'), maxCells, signal),
  },
  {
    name: 'Zarr',
    title: 'Zarr v2 store (batch jobs): the netCDF layout, chunked near 2 MiB, zlib, consolidated metadata',
    gis_data_types: ['raster'],
    mediaType: 'application/vnd+zarr',
    fileName: 'result.zarr',
    write: async () => {
      throw new ProcessingError(
        'FormatUnsuitable',
        'Zarr is a directory of files: save it from a batch job (POST /jobs), whose results serve each file.',
      );
    },
    writeDirectory: (value, dir, maxCells, signal, _options, share) =>
      cubeZarr(cubeOnly(value, 'Zarr', 'raster'), dir, maxCells, signal, undefined, share),
  },
  {
    name: 'PNG',
    title:
      "PNG picture: one band in a colour map (the dataset's display, or options colormap and range), or three as RGB",
    gis_data_types: ['raster'],
    mediaType: 'image/png',
    fileName: 'result.png',
    write: (value, maxCells, signal, options) => cubePng(cubeOnly(value, 'PNG', 'raster'), maxCells, signal, options),
  },
  {
    name: 'GeoJSON',
    title: 'GeoJSON: a vector cube as one Feature per geometry, a property per value',
    gis_data_types: ['vector'],
    mediaType: 'application/geo+json',
    fileName: 'result.geojson',
    write: (value, maxCells, signal) => vectorGeoJson(cubeOnly(value, 'GeoJSON', 'vector'), maxCells, signal),
  },
  {
    name: 'CSV',
    title: 'CSV: a vector cube as one row per value (geometry, the other labels, the value)',
    gis_data_types: ['vector', 'table'],
    mediaType: 'text/csv; charset=utf-8',
    fileName: 'result.csv',
    write: (value, maxCells, signal) => vectorCsv(cubeOnly(value, 'CSV', 'vector'), maxCells, signal),
  },
  {
    name: 'Parquet',
    title: 'GeoParquet 1.1: a vector cube as one row per geometry (WKB), its label, properties and a column per value',
    gis_data_types: ['vector', 'table'],
    mediaType: 'application/vnd.apache.parquet',
    fileName: 'result.parquet',
    write: (value, maxCells, signal) => vectorGeoParquet(cubeOnly(value, 'Parquet', 'vector'), maxCells, signal),
  },
  {
    name: 'dhis2-json',
    title: 'DHIS2 dataValueSets payload: a value per org unit (geometry label), period and data element',
    gis_data_types: ['vector'],
    mediaType: 'application/json',
    fileName: 'result.dhis2.json',
    write: (value, maxCells, signal, options) =>
      vectorDhis2Json(cubeOnly(value, 'dhis2-json', 'vector'), maxCells, signal, options),
  },
  {
    name: 'chap-csv',
    title: 'CHAP CSV: time_period, location and a column per band, a row per location and period (DHIS2 CHAP)',
    gis_data_types: ['vector'],
    mediaType: 'text/csv; charset=utf-8',
    fileName: 'result.chap.csv',
    parameters: {
      period_type: {
        description: 'The period of each time step; read from the labels when absent.',
        schema: { type: 'string', enum: [...CHAP_PERIOD_TYPES] },
        optional: true,
      },
      continuity: {
        description:
          'A gap (a period without a time step, or a location without a value): refuse it (error), write it empty and log a warning (warn), or write it empty (ignore).',
        schema: { type: 'string', enum: [...CONTINUITY_POLICIES] },
        optional: true,
        default: 'error',
      },
    },
    write: (value, maxCells, signal, options, warn) =>
      vectorChapCsv(cubeOnly(value, 'chap-csv', 'vector'), maxCells, signal, options, warn),
  },
];

function cubeOnly(value: unknown, format: string, kind: 'raster' | 'vector') {
  if (!isCube(value))
    throw new ProcessingError('FormatUnsuitable', `Only a ${kind} data cube can be written as ${format}.`);
  return value;
}

/** The output format named `name`, compared as openEO does, without regard to case. */
export function outputFormat(name: string): OutputFormat | undefined {
  return OUTPUT_FORMATS.find((f) => f.name.toLowerCase() === name.toLowerCase());
}
