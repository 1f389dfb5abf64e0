import { describe, expect, it } from 'vitest';
import { tileBounds, tileLevel } from '../../../core/render/tiles.ts';
import { build } from '../../test/build.ts';
import { publishedDataset } from '../../test/published-dataset.ts';

/** The tile of zoom z holding lon/lat. */
function tileAt(z: number, lon: number, lat: number) {
  const n = 2 ** z;
  const rad = (lat * Math.PI) / 180;
  return {
    x: Math.floor(((lon + 180) / 360) * n),
    y: Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n),
  };
}

describe('dataset map tiles', () => {
  it('computes tile bounds as Web Mercator does', () => {
    expect(tileBounds(0, 0, 0).west).toBeCloseTo(-180, 9);
    expect(tileBounds(0, 0, 0).east).toBeCloseTo(180, 9);
    expect(tileBounds(0, 0, 0).north).toBeCloseTo(85.0511287798, 9);
    const { x, y } = tileAt(7, -11.5, 8.5);
    const b = tileBounds(7, x, y);
    expect(b.west).toBeLessThanOrEqual(-11.5);
    expect(b.east).toBeGreaterThan(-11.5);
    expect(b.south).toBeLessThanOrEqual(8.5);
    expect(b.north).toBeGreaterThan(8.5);
  });

  // Levels of 0.01, 0.02, 0.04 and 0.08 degrees; a zoom-z pixel spans 360 / (256 × 2^z) degrees of longitude.
  it.each([
    ['zoom 3 near the equator reads the coarsest level', 3, 0, 10, 3],
    ['zoom 4 near the equator reads 0.08-degree cells against pixels of 0.082 degrees and more', 4, 0, 10, 3],
    ['zoom 5 near the equator reads 0.04-degree cells', 5, 0, 10, 2],
    ['zoom 6 near the equator reads 0.02-degree cells', 6, 0, 10, 1],
    ['zoom 5 at 70 degrees north, where pixels span fewer degrees of latitude, reads 0.01-degree cells', 5, 0, 70, 0],
    ['zoom 7 reads level 0, the finest there is', 7, 0, 10, 0],
  ])('%s', (_, z, lon, lat, level) => {
    const { x, y } = tileAt(z, lon, lat);
    expect(tileLevel([0.01, 0.02, 0.04, 0.08], z, x, y)).toBe(level);
  });

  it('renders a tile with validators tied to the version, and answers 304 to them', async () => {
    const built = await build();
    await publishedDataset(built, 'chirps');
    const { x, y } = tileAt(6, -11.8, 8.5);
    const url = `/datasets/chirps/tiles/6/${x}/${y}.png`;
    const tile = await built.app.inject({ url });
    expect(tile.statusCode).toBe(200);
    expect(tile.headers['content-type']).toBe('image/png');
    expect(tile.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    // IHDR: 256 × 256.
    expect([tile.rawPayload.readUInt32BE(16), tile.rawPayload.readUInt32BE(20)]).toEqual([256, 256]);
    const etag = tile.headers.etag as string;
    expect(etag).toBe('"tile-v1-2024-01-03--"');
    expect(tile.headers['cache-control']).toBe('no-cache');
    const again = await built.app.inject({ url, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    const other = await built.app.inject({ url: `${url}?time=2024-01-01&colormap=magma&range=0,10` });
    expect(other.statusCode).toBe(200);
    expect(other.headers.etag).toBe('"tile-v1-2024-01-01-magma-0,10"');
  });

  it('draws a period from a chunk decoded for another period exactly as from a fresh read', async () => {
    const { x, y } = tileAt(6, -11.8, 8.5);
    const url = (period: string) => `/datasets/chirps/tiles/6/${x}/${y}.png?time=${period}&range=0,10`;
    const warm = await build();
    await publishedDataset(warm, 'chirps');
    const first = await warm.app.inject({ url: url('2024-01-01') });
    const fromDecoded = await warm.app.inject({ url: url('2024-01-03') });
    const fresh = await build();
    await publishedDataset(fresh, 'chirps');
    const fromStore = await fresh.app.inject({ url: url('2024-01-03') });
    expect([first.statusCode, fromDecoded.statusCode, fromStore.statusCode]).toEqual([200, 200, 200]);
    expect(fromDecoded.rawPayload.equals(fromStore.rawPayload)).toBe(true);
    // The two periods differ, so a chunk served for the wrong period would show.
    expect(first.rawPayload.equals(fromDecoded.rawPayload)).toBe(false);
  });

  it('refuses bad tiles and parameters with 422, and answers 404 off the extent or the periods', async () => {
    const built = await build();
    await publishedDataset(built, 'chirps');
    const { x, y } = tileAt(6, -11.8, 8.5);
    const invalid: [string, string[]][] = [
      [`/datasets/chirps/tiles/25/0/0.png`, ['path', 'z']],
      [`/datasets/chirps/tiles/a/0/0.png`, ['path', 'z']],
      [`/datasets/chirps/tiles/2/4/0.png`, ['path', 'x']],
      [`/datasets/chirps/tiles/2/0/4.png`, ['path', 'y']],
      [`/datasets/chirps/tiles/6/${x}/${y}.png?colormap=rainbow`, ['query', 'colormap']],
      [`/datasets/chirps/tiles/6/${x}/${y}.png?range=5,1`, ['query', 'range']],
      [`/datasets/chirps/tiles/6/${x}/${y}.png?range=a,b`, ['query', 'range']],
    ];
    for (const [url, loc] of invalid) {
      const answer = await built.app.inject({ url });
      expect([url, answer.statusCode, answer.json()]).toEqual([
        url,
        422,
        { detail: [{ loc, msg: expect.any(String), type: 'invalid_value' }] },
      ]);
    }
    const cases: [string, number][] = [
      [`/datasets/chirps/tiles/6/0/0.png`, 404],
      [`/datasets/chirps/tiles/6/${x}/${y}.png?time=2023-12-31`, 404],
      [`/datasets/nope/tiles/6/${x}/${y}.png`, 404],
    ];
    for (const [url, status] of cases) {
      const answer = await built.app.inject({ url });
      expect([url, answer.statusCode]).toEqual([url, status]);
      expect(answer.json()).toHaveProperty('detail');
    }
  });

  it('describes the tiles as TileJSON 3.0.0', async () => {
    const built = await build('server.base.url = https://climate.example.org');
    await publishedDataset(built, 'chirps');
    const doc = (await built.app.inject({ url: '/datasets/chirps/tiles.json' })).json();
    expect(doc).toMatchObject({
      tilejson: '3.0.0',
      tiles: ['https://climate.example.org/datasets/chirps/tiles/{z}/{x}/{y}.png'],
      minzoom: 0,
      periods: ['2024-01-01', '2024-01-02', '2024-01-03'],
      colormap: 'viridis',
    });
    expect(doc.maxzoom).toBeGreaterThan(2);
    const [west, south, east, north] = doc.bounds as number[];
    expect(west).toBeLessThan(east);
    expect(south).toBeLessThan(north);
  });
});
