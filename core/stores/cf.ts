import { cfTimeUnit, type Period, type PeriodType } from '../periods/index.ts';

/**
 * The CF (and GDAL) metadata every raster store holds, whatever its format: the Zarr writer (`raster-cube.ts`) and
 * the NetCDF-4 writer (`netcdf/write.ts`) both take it from here, so xarray, rioxarray and GDAL read the same
 * coordinates and georeferencing from either. The grid is EPSG:4326.
 */

// The EPSG definition of WGS 84 in WKT 1 as GDAL writes it, for readers that predate WKT 2.
export const WGS84_WKT =
  'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],' +
  'AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],' +
  'UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],' +
  'AUTHORITY["EPSG","4326"]]';

/** Attributes of the scalar `spatial_ref` variable (CF grid mapping plus GDAL's GeoTransform). */
export function gridMappingAttributes(geoTransform: number[]): Record<string, unknown> {
  return {
    grid_mapping_name: 'latitude_longitude',
    semi_major_axis: 6378137,
    inverse_flattening: 298.257223563,
    longitude_of_prime_meridian: 0,
    crs_wkt: WGS84_WKT,
    spatial_ref: WGS84_WKT,
    GeoTransform: geoTransform.join(' '),
  };
}

export const LATITUDE_ATTRIBUTES = {
  standard_name: 'latitude',
  long_name: 'latitude',
  units: 'degrees_north',
  axis: 'Y',
};
export const LONGITUDE_ATTRIBUTES = {
  standard_name: 'longitude',
  long_name: 'longitude',
  units: 'degrees_east',
  axis: 'X',
};

/** The 1-D coordinate variables, in the data variable's dimension order, with their CF attributes. */
export function coordinateAttributes(periodType: PeriodType): Record<'time' | 'lat' | 'lon', Record<string, unknown>> {
  const time = cfTimeUnit(periodType);
  return {
    time: {
      standard_name: 'time',
      long_name: 'start of the period',
      axis: 'T',
      units: `${time.unit} since ${time.epoch}`,
      calendar: 'proleptic_gregorian',
    },
    lat: LATITUDE_ATTRIBUTES,
    lon: LONGITUDE_ATTRIBUTES,
  };
}

/** The `time` coordinate: the start of each period, in the units `coordinateAttributes` declares. */
export function timeValues(periods: Period[], periodType: PeriodType): BigInt64Array {
  const { step } = cfTimeUnit(periodType);
  return BigInt64Array.from(periods, (p) => BigInt(Math.round(p.start.getTime() / step)));
}

/** Attributes of the data variable: its units and name, and where its grid mapping is. */
export function dataAttributes(description: { units?: string; longName?: string }): Record<string, unknown> {
  return {
    ...(description.units !== undefined && { units: description.units }),
    ...(description.longName !== undefined && { long_name: description.longName }),
    grid_mapping: 'spatial_ref',
    coordinates: 'spatial_ref',
  };
}
