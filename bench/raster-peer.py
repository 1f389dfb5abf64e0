# The peer of bench/rasters.ts, in Debian's Python: zarr-python 2.13 writes the same cube (same chunks, zlib
# level 1, consolidated metadata), and GDAL reads the same COG windows over HTTP (/vsicurl/). Prints seconds, of
# wall clock and of CPU (every thread's).
# `writers` chunks are compressed and written at once by a thread pool (zlib and file writes release the GIL), as
# RasterCubeWriter keeps that many on libuv's pool; `sync` 1 flushes every file (fdatasync) before its rename, as
# Stratus flushes every key. With writers 1 and sync 0 the peer is zarr-python as it is usually run.
# argv: mode (zarr-write | ingest), writers, sync (0 | 1), then
#   zarr-write: raw float32 file, periods, ny, nx, ct, cy, cx, output dir
#   ingest:     reads in flight, URL list file, xmin, ymin, xmax, ymax, ct, cy, cx, output dir
import collections, json, os, sys, time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import zarr
from numcodecs import Zlib
from zarr.storage import DirectoryStore

os.environ.setdefault('GDAL_DISABLE_READDIR_ON_OPEN', 'EMPTY_DIR')
os.environ.setdefault('CPL_VSIL_CURL_ALLOWED_EXTENSIONS', '.cog')


class FlushedStore(DirectoryStore):
    """A DirectoryStore that flushes each file to disk before renaming it into place."""

    @staticmethod
    def _tofile(a, fn):
        with open(fn, mode='wb') as f:
            f.write(a)
            f.flush()
            os.fdatasync(f.fileno())


mode, writers, sync = sys.argv[1], int(sys.argv[2]), sys.argv[3] == '1'
pool = ThreadPoolExecutor(writers)


def store(out, shape, chunks):
    directory = FlushedStore(out) if sync else DirectoryStore(out)
    z = zarr.open_array(directory, mode='w', shape=shape, chunks=chunks, dtype='<f4', compressor=Zlib(level=1),
                        fill_value=float('nan'))
    return directory, z


def write_block(z, t0, block):
    """Writes a block of whole time steps chunk by chunk, `writers` chunks at once."""
    _, cy, cx = z.chunks
    _, ny, nx = block.shape

    def chunk(y0, x0):
        z[t0:t0 + len(block), y0:y0 + cy, x0:x0 + cx] = block[:, y0:y0 + cy, x0:x0 + cx]

    for f in [pool.submit(chunk, y0, x0) for y0 in range(0, ny, cy) for x0 in range(0, nx, cx)]:
        f.result()


if mode == 'zarr-write':
    raw, t, ny, nx, ct, cy, cx, out = sys.argv[4:12]
    t, ny, nx, ct, cy, cx = map(int, (t, ny, nx, ct, cy, cx))
    cube = np.fromfile(raw, dtype='<f4').reshape(t, ny, nx)
    start, cpu = time.perf_counter(), time.process_time()
    directory, z = store(out, (t, ny, nx), (ct, cy, cx))
    for t0 in range(0, t, ct):
        write_block(z, t0, cube[t0:t0 + ct])
    zarr.consolidate_metadata(directory)
    print(json.dumps({'seconds': time.perf_counter() - start, 'cpu_seconds': time.process_time() - cpu}))
else:
    from osgeo import gdal
    gdal.UseExceptions()
    reads, urls_file, xmin, ymin, xmax, ymax, ct, cy, cx, out = sys.argv[4:14]
    xmin, ymin, xmax, ymax = map(float, (xmin, ymin, xmax, ymax))
    reads, ct, cy, cx = map(int, (reads, ct, cy, cx))
    urls = open(urls_file).read().split()

    def read(url):
        d = gdal.Open('/vsicurl/' + url)
        x0, res, _, y0, _, _ = d.GetGeoTransform()
        xoff, yoff = int(round((xmin - x0) / res)), int(round((y0 - ymax) / res))
        w, h = int(round((xmax - xmin) / res)), int(round((ymax - ymin) / res))
        a = d.GetRasterBand(1).ReadAsArray(xoff, yoff, w, h).astype('<f4')
        a[a == -9999] = np.nan
        return a

    # Up to `reads` windows in flight, taken in order, as Stratus's read-ahead keeps them.
    readers = ThreadPoolExecutor(reads)
    start, cpu = time.perf_counter(), time.process_time()
    pending = collections.deque(readers.submit(read, url) for url in urls[:reads])
    block, z, t0 = [], None, 0
    for i in range(len(urls)):
        a = pending.popleft().result()
        if i + reads < len(urls):
            pending.append(readers.submit(read, urls[i + reads]))
        if z is None:
            directory, z = store(out, (len(urls), *a.shape), (ct, min(cy, a.shape[0]), min(cx, a.shape[1])))
        block.append(a)
        if len(block) == ct or i == len(urls) - 1:
            write_block(z, t0, np.stack(block))
            t0 += len(block)
            block = []
    zarr.consolidate_metadata(directory)
    print(json.dumps({'seconds': time.perf_counter() - start, 'cpu_seconds': time.process_time() - cpu}))
