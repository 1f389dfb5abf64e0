# The peer of bench/features.ts, in Debian's Python with GDAL: ogr2ogr converts the same GeoJSON file to
# FlatGeobuf (GDAL 3.6 here has no Parquet driver), then OGR reads every feature back (geometry as WKB and every
# field). Prints seconds for each step.
# argv: input GeoJSON, output FlatGeobuf
import json, subprocess, sys, time

from osgeo import ogr

ogr.UseExceptions()
source, target = sys.argv[1:3]

start = time.perf_counter()
subprocess.run(['ogr2ogr', '-f', 'FlatGeobuf', target, source], check=True)
write_seconds = time.perf_counter() - start

start = time.perf_counter()
dataset = ogr.Open(target)
layer = dataset.GetLayer(0)
count = 0
for feature in layer:
    feature.GetGeometryRef().ExportToIsoWkb()
    feature.items()
    count += 1
read_seconds = time.perf_counter() - start

print(json.dumps({'write_seconds': write_seconds, 'read_seconds': read_seconds, 'count': count}))
