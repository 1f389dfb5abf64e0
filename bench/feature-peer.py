# The peer of bench/features.ts, in Debian's Python with GDAL's bindings, every step timed inside this one process
# (not its start-up): GDAL converts the same GeoJSON file to FlatGeobuf without the spatial index (GDAL 3.6 here has
# no Parquet driver; Stratus's GeoParquet has no index either), then reads every feature back twice, geometry as WKB
# and every field: feature by feature through OGR, and as columns through OGR's Arrow stream. Prints seconds for each
# step and the features each read saw.
# argv: input GeoJSON, output FlatGeobuf
import json, sys, time

from osgeo import gdal, ogr

gdal.UseExceptions()
source, target = sys.argv[1:3]

start = time.perf_counter()
written = gdal.VectorTranslate(target, source, format='FlatGeobuf', layerCreationOptions=['SPATIAL_INDEX=NO'])
written = None  # closing the dataset writes what it still holds
write_seconds = time.perf_counter() - start

start = time.perf_counter()
# The dataset is held: a layer does not keep it open.
dataset = ogr.Open(target)
layer = dataset.GetLayer(0)
loop_count = 0
for feature in layer:
    feature.GetGeometryRef().ExportToIsoWkb()
    feature.items()
    loop_count += 1
loop_seconds = time.perf_counter() - start

start = time.perf_counter()
dataset = ogr.Open(target)
layer = dataset.GetLayer(0)
column_count = 0
for batch in layer.GetArrowStreamAsNumPy(options=['USE_MASKED_ARRAYS=NO']):
    column_count += len(batch['wkb_geometry'])
column_seconds = time.perf_counter() - start

print(json.dumps({
    'write_seconds': write_seconds,
    'loop': {'seconds': loop_seconds, 'count': loop_count},
    'columns': {'seconds': column_seconds, 'count': column_count},
}))
