"""The zonal statistics peer: numpy masking per polygon and per time step, as the anchor computes zonal means.

argv: the raw float32 cube file (T x H x W, C order) or a Zarr store (`*.zarr`, read with xarray inside the
timed part), T, H, W, the GeoJSON FeatureCollection of polygons
(lon/lat on the cube's grid), and the grid's west, north and pixel size. Each polygon's pixel-centre mask is
built once with numpy (even-odd ray casting over the polygon's bounding window); then for every time step and
every polygon, nanmean(data[t][mask]). Prints the seconds of both parts (wall clock), the CPU seconds of both,
and the means as JSON.
"""
import json
import sys
import time

import numpy as np

path, T, H, W, geojson, west, north, size = sys.argv[1:9]
T, H, W = int(T), int(H), int(W)
west, north, size = float(west), float(north), float(size)
features = json.load(open(geojson))["features"]

# A Zarr store is read (decoded by zarr-python through xarray) inside the timed part; a raw file before it.
from_store = path.endswith(".zarr")
read_seconds = 0.0
read_cpu = 0.0
if from_store:
    import xarray

    start = time.perf_counter()
    cpu = time.process_time()
    data = xarray.open_zarr(path, consolidated=True)["value"].values
    read_seconds = time.perf_counter() - start
    read_cpu = time.process_time() - cpu
else:
    data = np.fromfile(path, dtype=np.float32).reshape(T, H, W)

start = time.perf_counter()
cpu = time.process_time()
masks = []
for feature in features:
    ring = np.array(feature["geometry"]["coordinates"][0], dtype=np.float64)
    cols = (ring[:, 0] - west) / size
    rows = (north - ring[:, 1]) / size
    c0, c1 = max(0, int(np.floor(cols.min()))), min(W, int(np.ceil(cols.max())) + 1)
    r0, r1 = max(0, int(np.floor(rows.min()))), min(H, int(np.ceil(rows.max())) + 1)
    yc, xc = np.mgrid[r0:r1, c0:c1]
    xc = xc + 0.5
    yc = yc + 0.5
    inside = np.zeros(xc.shape, dtype=bool)
    x1, y1 = cols[:-1], rows[:-1]
    x2, y2 = cols[1:], rows[1:]
    for a, b, c, d in zip(x1, y1, x2, y2):
        crosses = (b <= yc) != (d <= yc)
        with np.errstate(divide="ignore", invalid="ignore"):
            x_at = a + (yc - b) / (d - b) * (c - a)
        inside ^= crosses & (xc < x_at)
    mask = np.zeros((H, W), dtype=bool)
    mask[r0:r1, c0:c1] = inside
    masks.append(mask)
mask_seconds = time.perf_counter() - start
mask_cpu = time.process_time() - cpu

start = time.perf_counter()
cpu = time.process_time()
means = np.empty((len(masks), T))
for t in range(T):
    plane = data[t]
    for g, mask in enumerate(masks):
        means[g, t] = np.nanmean(plane[mask])
reduce_seconds = time.perf_counter() - start
reduce_cpu = time.process_time() - cpu


def peak_rss_megabytes():
    # VmHWM: the high-water mark of this process's own memory; ru_maxrss keeps that of the parent it was forked
    # from (Linux carries it across exec), which the bench's parent holding a cube would inflate.
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024


print(json.dumps({
    "read_seconds": read_seconds,
    "mask_seconds": mask_seconds,
    "reduce_seconds": reduce_seconds,
    "cpu_seconds": read_cpu + mask_cpu + reduce_cpu,
    "peak_rss_megabytes": peak_rss_megabytes(),
    "means": means.tolist(),
}))
