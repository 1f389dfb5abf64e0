"""SPI as a SciPy user writes it, the peer of the SPI row of bench/climate-indices.ts, with the method of the
reference in core/processing/indices/spi.test.ts: monthly totals of the daily precipitation of a netCDF file
(numpy, one `add.reduceat`), sums of `scale` months, then per calendar month and cell the maximum-likelihood gamma
fit of the calibration years' wet values (`scipy.stats.gamma.fit`, location 0) with the probability of zero, and
the normal quantile of every month's probability (vectorised over the months of the cell). One thread.

Arguments: the netCDF path, its variable, the scale in months, the calibration's first and last years. Prints JSON:
the values with an index, and their sum.
"""
import json, sys
import numpy as np
import netCDF4
from scipy import stats

path, name, scale, first, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
ds = netCDF4.Dataset(path)
daily = ds[name][:].filled(np.nan).astype('f8')
dates = netCDF4.num2date(ds['time'][:], ds['time'].units)
ordinal = np.array([d.year * 12 + d.month - 1 for d in dates])
starts = np.flatnonzero(np.r_[True, ordinal[1:] != ordinal[:-1]])
monthly = np.add.reduceat(daily, starts, axis=0).reshape(len(starts), -1)
month, year = ordinal[starts] % 12, ordinal[starts] // 12
accumulated = np.full_like(monthly, np.nan)
accumulated[scale - 1:] = sum(monthly[k:len(monthly) - scale + 1 + k] for k in range(scale))
out = np.full_like(accumulated, np.nan)
for m in range(12):
    rows = np.flatnonzero(month == m)
    calibration = rows[(year[rows] >= first) & (year[rows] <= last)]
    for cell in range(monthly.shape[1]):
        sample = accumulated[calibration, cell]
        sample = sample[~np.isnan(sample)]
        wet = sample[sample > 0]
        if len(sample) < 3 or len(wet) < 2:
            continue
        zero = 1 - len(wet) / len(sample)
        shape, _, scale_ = stats.gamma.fit(wet, floc=0)
        x = accumulated[rows, cell]
        p = np.where(x > 0, zero + (1 - zero) * stats.gamma.cdf(x, shape, scale=scale_), zero)
        out[rows, cell] = np.where(np.isnan(x), np.nan, np.clip(stats.norm.ppf(p), -8.21, 8.21))
present = ~np.isnan(out)
print(json.dumps({'values': int(present.sum()), 'sum': float(out[present].sum())}))
