"""The numpy expert's analytics table, the peer of bench/analytics-table.ts.

Reads the same Zarr store with zarr-python one time chunk at a time; each polygon's coverage fractions over its
window (shapely, computed once and timed apart), then per polygon and time chunk one vectorised weighted mean over
the window for every step (`block[:, r0:r1, c0:c1]`), then monthly mean, sum, min, max and count with numpy.
One thread (OMP/OPENBLAS set to 1 by the caller). Prints JSON: seconds of each phase, peak RSS, the monthly means.
"""
import json, resource, sys, time
import numpy as np
import zarr
from shapely.geometry import box, shape

store, polygons_path = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
group = zarr.open_group(store, mode='r')
data = group['value']
lat = group['lat'][:]
lon = group['lon'][:]
times = group['time'][:]
dy = abs(lat[1] - lat[0]); dx = abs(lon[1] - lon[0])
features = json.load(open(polygons_path))['features']

masks = []
for f in features:
    geom = shape(f['geometry'])
    minx, miny, maxx, maxy = geom.bounds
    c0 = max(int(np.floor((minx - (lon[0] - dx / 2)) / dx)), 0)
    c1 = min(int(np.ceil((maxx - (lon[0] - dx / 2)) / dx)), len(lon))
    r0 = max(int(np.floor(((lat[0] + dy / 2) - maxy) / dy)), 0)
    r1 = min(int(np.ceil(((lat[0] + dy / 2) - miny) / dy)), len(lat))
    w = np.zeros((r1 - r0, c1 - c0))
    for r in range(r0, r1):
        for c in range(c0, c1):
            cell = box(lon[c] - dx / 2, lat[r] - dy / 2, lon[c] + dx / 2, lat[r] + dy / 2)
            w[r - r0, c - c0] = geom.intersection(cell).area / (dx * dy)
    masks.append((r0, r1, c0, c1, w))
mask_seconds = time.perf_counter() - t0

t1 = time.perf_counter()
steps = data.shape[0]
ct = data.chunks[0]
daily = np.empty((len(features), steps))
for start in range(0, steps, ct):
    block = data[start:start + ct]
    for k, (r0, r1, c0, c1, w) in enumerate(masks):
        v = block[:, r0:r1, c0:c1]
        valid = ~np.isnan(v)
        daily[k, start:start + ct] = np.where(valid, v, 0).reshape(len(v), -1) @ w.ravel() / (valid.reshape(len(v), -1) @ w.ravel())
days = np.datetime64('1970-01-01') + times.astype('timedelta64[D]')
months = days.astype('datetime64[M]')
labels, index = np.unique(months, return_inverse=True)
means = []
for m in range(len(labels)):
    x = daily[:, index == m]
    ok = ~np.isnan(x)
    n = ok.sum(axis=1)
    s = np.where(ok, x, 0).sum(axis=1)
    _ = (np.nanmin(x, axis=1), np.nanmax(x, axis=1), n)
    means.append((s / n).tolist())
aggregate_seconds = time.perf_counter() - t1
print(json.dumps({
    'mask_seconds': mask_seconds,
    'aggregate_seconds': aggregate_seconds,
    'peak_rss_megabytes': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    'months': [str(l) for l in labels],
    'means': means,
}))
