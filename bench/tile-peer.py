# The peer of bench/tiles.ts and bench/pyramids.ts, in Debian's Python with GDAL: each tile of the list warped from
# the same data (GDAL's Zarr driver, `ZARR:"store":/variable:period`, or a GeoTIFF per period with its overviews,
# which gdalwarp picks by the output resolution) to its Web Mercator bounds, 256 x 256, nearest neighbour,
# then coloured by `gdaldem color-relief` with the colour file Stratus's colour map gives, nodata transparent.
# Three ways, each tile timed on its own after a pass over every tile that warms the page cache:
# - cli: the command-line tools per tile (gdalwarp to a VRT, gdaldem to a PNG), as a script or a cron job would;
# - library: the same two steps through the GDAL library in this one process (gdal.Warp to memory,
#   gdal.DEMProcessing to /vsimem), the store opened per tile, so no decoded chunk outlives its tile (the peer of
#   Stratus cold, a fresh server per tile);
# - kept_open: as library, but each period's dataset stays open, so GDAL's block cache keeps decoded chunks
#   from the warm-up pass (the peer of Stratus warm, a server that served every tile once).
# GDAL 3.6 maps the axes of a slice of a 3-D Zarr array wrongly ([2, 0] for the store's EPSG:4326, so every
# warped pixel comes out nodata); the source CRS is therefore given explicitly.
# argv: source (a GDAL dataset name, `{period}` standing for the period's index), colour file, tiles JSON
# ([{z, x, y, period, bounds: [w, s, e, n]}]), work directory
import json, os, subprocess, sys, time

from osgeo import gdal

gdal.UseExceptions()
template, colours, tiles_path, work = sys.argv[1:5]
tiles = json.load(open(tiles_path))


def source(tile):
    return template.replace('{period}', str(tile['period']))


opened = {}


def kept_open(tile):
    if tile['period'] not in opened:
        opened[tile['period']] = gdal.Open(source(tile))
    return opened[tile['period']]


def cli(tile, name):
    vrt, png = os.path.join(work, name + '.vrt'), os.path.join(work, name + '.png')
    subprocess.run(['gdalwarp', '-q', '-overwrite', '-of', 'VRT', '-s_srs', 'EPSG:4326', '-t_srs', 'EPSG:3857',
                    '-te', *map(str, tile['bounds']), '-ts', '256', '256', '-r', 'near', '-dstnodata', 'nan',
                    source(tile), vrt], check=True)
    subprocess.run(['gdaldem', 'color-relief', '-q', '-alpha', '-of', 'PNG', vrt, colours, png], check=True)
    return os.path.getsize(png)


def library(tile, name, open_source=source):
    warped = gdal.Warp('', open_source(tile), format='MEM', srcSRS='EPSG:4326', dstSRS='EPSG:3857', outputBounds=tile['bounds'],
                       width=256, height=256, resampleAlg='near', dstNodata=float('nan'))
    png = f'/vsimem/{name}.png'
    gdal.DEMProcessing(png, warped, 'color-relief', colorFilename=colours, format='PNG', addAlpha=True)
    size = gdal.VSIStatL(png).size
    gdal.Unlink(png)
    return size


def timed(render):
    # One pass to warm the page cache and the library, then the measured pass.
    for i, tile in enumerate(tiles):
        render(tile, f'warm{i}')
    seconds = []
    for i, tile in enumerate(tiles):
        start = time.perf_counter()
        render(tile, f'tile{i}')
        seconds.append(time.perf_counter() - start)
    return seconds


print(json.dumps({
    'cli': timed(cli),
    'library': timed(library),
    'kept_open': timed(lambda tile, name: library(tile, name, kept_open)),
}))
