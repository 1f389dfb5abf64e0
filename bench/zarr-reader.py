"""What a Python user feels reading a Zarr store over HTTP: xarray over zarr-python and fsspec's HTTP file system.

`python3 bench/zarr-reader.py URL LOADS` opens the consolidated store at URL and loads every variable into memory
LOADS times, each time from a fresh `open_zarr` (fsspec keeps its HTTP session and connections, as a user's process
does). Prints one JSON line: the seconds of each load (open included) and the number of values loaded, so the
caller can check both servers gave the same data.
"""

import json
import sys
import time

import numpy as np
import xarray as xr


def main() -> None:
    url, loads = sys.argv[1], int(sys.argv[2])
    seconds = []
    checksum = None
    for _ in range(loads):
        start = time.perf_counter()
        dataset = xr.open_zarr(url, consolidated=True).load()
        seconds.append(time.perf_counter() - start)
        values = dataset[list(dataset.data_vars)[0]].values
        checksum = [int(values.size), float(np.nansum(values, dtype=np.float64))]
    print(json.dumps({"seconds": seconds, "values": checksum}))


if __name__ == "__main__":
    main()
