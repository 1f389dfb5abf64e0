"""The zonal statistics peers: zonal means as a numpy expert computes them, one thread.

argv: the method, the raw float32 cube file (T x H x W, C order) or a Zarr store (`*.zarr`, read with xarray
inside the timed part), T, H, W, the GeoJSON FeatureCollection of polygons (lon/lat on the cube's grid), and the
grid's west, north and pixel size, then optionally `again` (the masks and means computed a second time, timed
apart). Methods:
- `window`: each polygon's pixel-centre mask built once over its bounding window (even-odd ray casting, vectorised
  over the window), then per polygon one reduction over all time steps that reads only the window:
  `nanmean(data[:, r0:r1, c0:c1][:, inside], axis=1)`.
- `labels`: one label grid of every polygon's pixel centres (polygons do not overlap), its labelled pixels'
  indices taken once, then per time step one `np.bincount` of the values and one of the valid pixels.
- `coverage`: `window` with each window cell weighted by the fraction of it inside the polygon (shapely's exact
  intersection area for the cells the boundary crosses, 1 or 0 for the others), then per polygon
  `sum(w * v) / sum(w * valid)` over all time steps.
Prints the seconds of the read, of the masks (or weights) and of the reduction (wall clock), the CPU seconds of
all three, the peak memory and the means (polygon-major) as JSON.
"""
import os

# One thread like for like, whatever numpy was built with.
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"

import json
import sys
import time

import numpy as np

method, path, T, H, W, geojson, west, north, size = sys.argv[1:10]
T, H, W = int(T), int(H), int(W)
west, north, size = float(west), float(north), float(size)
features = json.load(open(geojson))["features"]

# A Zarr store is read (decoded by zarr-python through xarray) inside the timed part; a raw file before it.
read_seconds = 0.0
read_cpu = 0.0
if path.endswith(".zarr"):
    import xarray

    start = time.perf_counter()
    cpu = time.process_time()
    data = xarray.open_zarr(path, consolidated=True)["value"].values
    read_seconds = time.perf_counter() - start
    read_cpu = time.process_time() - cpu
else:
    data = np.fromfile(path, dtype=np.float32).reshape(T, H, W)


def grid_ring(feature):
    """The exterior ring in grid coordinates: columns right, rows down, cell (r, c) the unit square at (c, r)."""
    ring = np.array(feature["geometry"]["coordinates"][0], dtype=np.float64)
    return (ring[:, 0] - west) / size, (north - ring[:, 1]) / size


def window_of(cols, rows):
    c0, c1 = max(0, int(np.floor(cols.min()))), min(W, int(np.ceil(cols.max())) + 1)
    r0, r1 = max(0, int(np.floor(rows.min()))), min(H, int(np.ceil(rows.max())) + 1)
    return r0, r1, c0, c1


def centre_mask(cols, rows, r0, r1, c0, c1):
    """The window's cells whose centre is inside the ring (even-odd rule)."""
    yc, xc = np.mgrid[r0:r1, c0:c1] + 0.5
    inside = np.zeros(xc.shape, dtype=bool)
    for a, b, c, d in zip(cols[:-1], rows[:-1], cols[1:], rows[1:]):
        crosses = (b <= yc) != (d <= yc)
        with np.errstate(divide="ignore", invalid="ignore"):
            x_at = a + (yc - b) / (d - b) * (c - a)
        inside ^= crosses & (xc < x_at)
    return inside


def coverage_weights(cols, rows, r0, r1, c0, c1):
    """The fraction of each window cell inside the ring: exact for the cells the boundary crosses."""
    from shapely.geometry import Polygon, box

    polygon = Polygon(zip(cols, rows))
    weights = centre_mask(cols, rows, r0, r1, c0, c1).astype(np.float64)
    # The cells the boundary passes through, sampled finer than a cell along every edge.
    crossed = set()
    for a, b, c, d in zip(cols[:-1], rows[:-1], cols[1:], rows[1:]):
        n = int(np.ceil(max(abs(c - a), abs(d - b)) * 8)) + 1
        t = np.linspace(0.0, 1.0, n + 1)
        for x, y in zip(np.floor(a + t * (c - a)).astype(int), np.floor(b + t * (d - b)).astype(int)):
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    crossed.add((y + dy, x + dx))
    for y, x in crossed:
        if r0 <= y < r1 and c0 <= x < c1:
            weights[y - r0, x - c0] = polygon.intersection(box(x, y, x + 1, y + 1)).area
    return weights


def masks_and_means():
    """The method's masks (or weights), then its means: (means, mask seconds, reduce seconds, CPU seconds)."""
    start = time.perf_counter()
    cpu = time.process_time()
    if method == "labels":
        labels = np.zeros(H * W, dtype=np.intp)
        for g, feature in enumerate(features):
            cols, rows = grid_ring(feature)
            r0, r1, c0, c1 = window_of(cols, rows)
            inside = centre_mask(cols, rows, r0, r1, c0, c1)
            labels.reshape(H, W)[r0:r1, c0:c1][inside] = g + 1
        pixels = np.flatnonzero(labels)
        labels = labels[pixels]
    else:
        windows = []
        for feature in features:
            cols, rows = grid_ring(feature)
            r0, r1, c0, c1 = window_of(cols, rows)
            if method == "window":
                windows.append((r0, r1, c0, c1, centre_mask(cols, rows, r0, r1, c0, c1)))
            else:
                windows.append((r0, r1, c0, c1, coverage_weights(cols, rows, r0, r1, c0, c1)))
    mask_seconds = time.perf_counter() - start
    mask_cpu = time.process_time() - cpu

    start = time.perf_counter()
    cpu = time.process_time()
    G = len(features)
    if method == "labels":
        means = np.empty((T, G))
        for t in range(T):
            values = data[t].ravel()[pixels]
            valid = ~np.isnan(values)
            sums = np.bincount(labels[valid], weights=values[valid], minlength=G + 1)
            counts = np.bincount(labels[valid], minlength=G + 1)
            with np.errstate(invalid="ignore", divide="ignore"):
                means[t] = sums[1:] / counts[1:]
        means = means.T
    elif method == "window":
        means = np.empty((G, T))
        for g, (r0, r1, c0, c1, inside) in enumerate(windows):
            means[g] = np.nanmean(data[:, r0:r1, c0:c1][:, inside], axis=1)
    else:
        means = np.empty((G, T))
        for g, (r0, r1, c0, c1, weights) in enumerate(windows):
            window = data[:, r0:r1, c0:c1]
            valid = ~np.isnan(window)
            sums = np.einsum("tyx,yx->t", np.where(valid, window, 0), weights)
            with np.errstate(invalid="ignore", divide="ignore"):
                means[g] = sums / np.einsum("tyx,yx->t", valid, weights)
    reduce_seconds = time.perf_counter() - start
    reduce_cpu = time.process_time() - cpu
    return means, mask_seconds, reduce_seconds, mask_cpu + reduce_cpu


means, mask_seconds, reduce_seconds, cpu_seconds = masks_and_means()
# Asked for a second pass (`again`): the same work once more in this process, timed apart (what a process that
# already ran it once takes).
again = masks_and_means() if len(sys.argv) > 10 and sys.argv[10] == "again" else None


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
    "cpu_seconds": read_cpu + cpu_seconds,
    "again_seconds": again[1] + again[2] if again else None,
    "again_cpu_seconds": again[3] if again else None,
    "peak_rss_megabytes": peak_rss_megabytes(),
    "means": np.where(np.isnan(means), None, means).tolist(),
}))
