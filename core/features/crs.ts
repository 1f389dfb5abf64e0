/**
 * The CRS every stored feature collection uses: WGS 84 (EPSG:4326). GeoParquet stores coordinates x/y, so
 * positions are longitude, latitude whatever the CRS's formal axis order. Written as PROJJSON into the `geo`
 * metadata, because a GeoParquet reader takes an absent `crs` to mean OGC:CRS84 and only PROJJSON is portable.
 */
export const STORED_CRS = 'EPSG:4326';

export const STORED_CRS_PROJJSON = {
  $schema: 'https://proj.org/schemas/v0.7/projjson.schema.json',
  type: 'GeographicCRS',
  name: 'WGS 84',
  datum: {
    type: 'GeodeticReferenceFrame',
    name: 'World Geodetic System 1984',
    ellipsoid: { name: 'WGS 84', semi_major_axis: 6378137, inverse_flattening: 298.257223563 },
  },
  coordinate_system: {
    subtype: 'ellipsoidal',
    axis: [
      { name: 'Geodetic latitude', abbreviation: 'Lat', direction: 'north', unit: 'degree' },
      { name: 'Geodetic longitude', abbreviation: 'Lon', direction: 'east', unit: 'degree' },
    ],
  },
  id: { authority: 'EPSG', code: 4326 },
} as const;
