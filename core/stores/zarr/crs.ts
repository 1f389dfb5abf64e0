/** Coordinate reference system attributes that CF readers (xarray, rioxarray) and GDAL need, for EPSG:4326. */

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
