# The peer of bench/rasters.ts, in Debian's Python: zarr-python 2.13 writes the same cube (same chunks, zlib
# level 1, consolidated metadata), and GDAL reads the same COG windows over HTTP (/vsicurl/). Prints seconds.
# argv: mode (zarr-write | ingest), then
#   zarr-write: raw float32 file, periods, ny, nx, ct, cy, cx, output dir
#   ingest:     URL list file, xmin, ymin, xmax, ymax, ct, cy, cx, output dir
import json, os, sys, time

import numpy as np
import zarr
from numcodecs import Zlib

os.environ.setdefault('GDAL_DISABLE_READDIR_ON_OPEN', 'EMPTY_DIR')
os.environ.setdefault('CPL_VSIL_CURL_ALLOWED_EXTENSIONS', '.cog')


def store(out, shape, chunks):
    z = zarr.open(out, mode='w', shape=shape, chunks=chunks, dtype='<f4', compressor=Zlib(level=1),
                  fill_value=float('nan'))
    return z


mode = sys.argv[1]
if mode == 'zarr-write':
    raw, t, ny, nx, ct, cy, cx, out = sys.argv[2:10]
    t, ny, nx, ct, cy, cx = map(int, (t, ny, nx, ct, cy, cx))
    cube = np.fromfile(raw, dtype='<f4').reshape(t, ny, nx)
    start = time.perf_counter()
    z = store(out, (t, ny, nx), (ct, cy, cx))
    for t0 in range(0, t, ct):
        z[t0:t0 + ct] = cube[t0:t0 + ct]
    zarr.consolidate_metadata(out)
    print(json.dumps({'seconds': time.perf_counter() - start}))
else:
    from osgeo import gdal
    gdal.UseExceptions()
    urls_file, xmin, ymin, xmax, ymax, ct, cy, cx, out = sys.argv[2:11]
    xmin, ymin, xmax, ymax = map(float, (xmin, ymin, xmax, ymax))
    ct, cy, cx = map(int, (ct, cy, cx))
    urls = open(urls_file).read().split()
    start = time.perf_counter()
    block, z, t0 = [], None, 0
    for url in urls:
        d = gdal.Open('/vsicurl/' + url)
        x0, res, _, y0, _, _ = d.GetGeoTransform()
        xoff, yoff = int(round((xmin - x0) / res)), int(round((y0 - ymax) / res))
        w, h = int(round((xmax - xmin) / res)), int(round((ymax - ymin) / res))
        a = d.GetRasterBand(1).ReadAsArray(xoff, yoff, w, h).astype('<f4')
        a[a == -9999] = np.nan
        if z is None:
            z = store(out, (len(urls), h, w), (ct, min(cy, h), min(cx, w)))
        block.append(a)
        if len(block) == ct:
            z[t0:t0 + ct] = np.stack(block)
            t0 += ct
            block = []
    if block:
        z[t0:t0 + len(block)] = np.stack(block)
    zarr.consolidate_metadata(out)
    print(json.dumps({'seconds': time.perf_counter() - start}))
