"""CDO's input for bench/climate-indices.ts: daily grids written as netCDF by the netCDF C library through
netCDF4-python, from the raw little-endian float32 planes (time, lat, lon) that the bench writes beside its Zarr
stores, a year at a time: classic (64-bit offsets, uncompressed), or with `deflate` netCDF-4 compressed with deflate
level 1 in chunks of one day's grid (what CDO itself writes with `-z zip_1`).

One JSON argument: {"out", "name", "units", "deflate", "double", "offset", "start", "days", "lat", "lon", "raws"}. The
variable is the mean of the raws (one, or tasmin and tasmax for the daily mean temperature) plus `offset` (273.15
for kelvin), in double precision when `double` (values in kelvin are not exact in single precision), otherwise
single. Missing values are NaN, the _FillValue.
"""
import json, sys
import numpy as np
import netCDF4

spec = json.loads(sys.argv[1])
days, ny, nx = spec['days'], len(spec['lat']), len(spec['lon'])
raws = [np.memmap(path, dtype='<f4', mode='r', shape=(days, ny, nx)) for path in spec['raws']]
dtype = 'f8' if spec['double'] else 'f4'

ds = netCDF4.Dataset(spec['out'], 'w', format='NETCDF4' if spec['deflate'] else 'NETCDF3_64BIT_OFFSET')
ds.createDimension('time', None)
ds.createDimension('lat', ny)
ds.createDimension('lon', nx)
time = ds.createVariable('time', 'f8', ('time',))
time.units = f"days since {spec['start']} 00:00:00"
time.calendar = 'standard'
lat = ds.createVariable('lat', 'f8', ('lat',))
lat.units = 'degrees_north'
lat[:] = spec['lat']
lon = ds.createVariable('lon', 'f8', ('lon',))
lon.units = 'degrees_east'
lon[:] = spec['lon']
compression = {'zlib': True, 'complevel': 1, 'chunksizes': (1, ny, nx)} if spec['deflate'] else {}
var = ds.createVariable(spec['name'], dtype, ('time', 'lat', 'lon'), fill_value=np.nan, **compression)
var.units = spec['units']
time[:] = np.arange(days, dtype='f8')
for t0 in range(0, days, 365):
    t1 = min(days, t0 + 365)
    block = sum(r[t0:t1].astype(dtype) for r in raws) / len(raws) + spec['offset']
    var[t0:t1] = block.astype(dtype)
ds.close()
