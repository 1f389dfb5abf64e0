"""The zonal statistics peer: numpy masking per polygon and per time step, as the anchor computes zonal means.

argv: the raw float32 cube file (T x H x W, C order), T, H, W, the GeoJSON FeatureCollection of polygons
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
data = np.fromfile(path, dtype=np.float32).reshape(T, H, W)
features = json.load(open(geojson))["features"]

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
print(json.dumps({
    "mask_seconds": mask_seconds,
    "reduce_seconds": reduce_seconds,
    "cpu_seconds": mask_cpu + reduce_cpu,
    "means": means.tolist(),
}))
