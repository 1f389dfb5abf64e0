# Reads a Zarr store written by Stratus with independent readers and prints what they saw as JSON.
# argv: store URL or path, variable name, path of a file to receive the values (float32, C order) from xarray.
import json, sys
import numpy as np
import xarray as xr
import rioxarray  # noqa: F401  registers the .rio accessor
from osgeo import gdal

store, variable, values_out = sys.argv[1], sys.argv[2], sys.argv[3]
gdal.UseExceptions()

ds = xr.open_zarr(store, consolidated=True)
da = ds[variable]
np.asarray(da.values, dtype='<f4').tofile(values_out)
transform = da.rio.transform()
xarray_view = {
    'dims': list(da.dims),
    'shape': list(da.shape),
    'time': [str(t)[:19] for t in ds['time'].values],
    'lat0': float(ds['lat'].values[0]),
    'lon0': float(ds['lon'].values[0]),
    'epsg': da.rio.crs.to_epsg() if da.rio.crs else None,
    'transform': [transform.c, transform.a, transform.b, transform.f, transform.d, transform.e],
    'units': da.attrs.get('units'),
}

gdal_path = store if not store.startswith('http') else '/vsicurl/' + store
# The multidimensional API sees the whole cube; the classic API one time step (the index after the name).
cube = gdal.OpenEx(gdal_path, gdal.OF_MULTIDIM_RASTER).GetRootGroup().OpenMDArray(variable)
raster = gdal.Open(f'ZARR:"{gdal_path}":/{variable}:0')
first = raster.GetRasterBand(1).ReadAsArray().astype('<f4')
srs = raster.GetSpatialRef()
gdal_view = {
    'size': [d.GetSize() for d in cube.GetDimensions()],
    'dimensions': [d.GetName() for d in cube.GetDimensions()],
    'geotransform': list(raster.GetGeoTransform()),
    'epsg': int(srs.GetAuthorityCode(None)) if srs is not None and srs.GetAuthorityCode(None) else None,
    'first_band_equals_xarray': bool(np.array_equal(first, np.asarray(da.isel(time=0).values, dtype='<f4'), equal_nan=True)),
}
print(json.dumps({'xarray': xarray_view, 'gdal': gdal_view}))
