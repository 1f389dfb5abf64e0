import { fromArrayBuffer } from 'geotiff';
import { describe, expect, it } from 'vitest';
import { cubeOf, spatial, temporal } from '../../../test/support/cubes.ts';
import { TILE, writeCog } from './cog.ts';
import { cubeGeoTiff } from './gtiff.ts';

interface Ifd {
  at: number;
  end: number;
  tags: Map<number, number[]>;
}

/** The IFD chain of a little-endian classic TIFF, read by hand: where each IFD is and its numeric tags. */
function ifds(bytes: Uint8Array): Ifd[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect(String.fromCharCode(bytes[0]!, bytes[1]!)).toBe('II');
  expect(view.getUint16(2, true)).toBe(42);
  const size: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 12: 8 };
  const out: Ifd[] = [];
  for (let at = view.getUint32(4, true); at !== 0;) {
    const count = view.getUint16(at, true);
    const tags = new Map<number, number[]>();
    let end = at + 2 + count * 12 + 4;
    for (let i = 0; i < count; i++) {
      const entry = at + 2 + i * 12;
      const [tag, type, n] = [
        view.getUint16(entry, true),
        view.getUint16(entry + 2, true),
        view.getUint32(entry + 4, true),
      ];
      const bytesOf = size[type]! * n;
      const valuesAt = bytesOf <= 4 ? entry + 8 : view.getUint32(entry + 8, true);
      if (bytesOf > 4) end = Math.max(end, valuesAt + bytesOf);
      const values = Array.from({ length: n }, (_, k) =>
        type === 3
          ? view.getUint16(valuesAt + 2 * k, true)
          : type === 4
            ? view.getUint32(valuesAt + 4 * k, true)
            : type === 12
              ? view.getFloat64(valuesAt + 8 * k, true)
              : view.getUint8(valuesAt + k),
      );
      tags.set(tag, values);
    }
    out.push({ at, end, tags });
    at = view.getUint32(at + 2 + count * 12, true);
  }
  return out;
}

const geo = { dx: 0.1, dy: 0.1, west: 10, north: 50, epsg: 4326 };

describe('Cloud Optimized GeoTIFF writer', () => {
  it('puts every IFD before the tiles, and the smallest overview first', () => {
    const [width, height] = [700, 300];
    const pixels = Float32Array.from({ length: width * height * 2 }, (_, i) => i % 1000);
    const chain = ifds(writeCog(width, height, 2, pixels, geo));
    // 700 x 300, then 350 x 150 (one tile high, two wide), then 175 x 75, which fits one tile.
    expect(chain.map((ifd) => [ifd.tags.get(256)![0], ifd.tags.get(257)![0]])).toEqual([
      [700, 300],
      [350, 150],
      [175, 75],
    ]);
    expect(chain.map((ifd) => ifd.tags.get(254)![0])).toEqual([0, 1, 1]);
    for (const ifd of chain) {
      expect(ifd.tags.get(322)).toEqual([TILE]);
      expect(ifd.tags.get(323)).toEqual([TILE]);
      expect(ifd.tags.get(259)).toEqual([8]);
      expect(ifd.tags.get(339)).toEqual([3, 3]);
    }
    expect(chain.map((ifd) => ifd.tags.get(324)!.length)).toEqual([3 * 2, 2 * 1, 1]);
    const firstTile = Math.min(...chain.flatMap((ifd) => ifd.tags.get(324)!));
    expect(Math.max(...chain.map((ifd) => ifd.end))).toBeLessThanOrEqual(firstTile);
    // Each level's tiles lie before the tiles of the next larger level.
    for (let level = chain.length - 1; level > 0; level--)
      expect(Math.max(...chain[level]!.tags.get(324)!)).toBeLessThan(Math.min(...chain[level - 1]!.tags.get(324)!));
    // Georeferencing on the full resolution only.
    expect(chain[0]!.tags.get(33922)).toEqual([0, 0, 0, 10, 50, 0]);
    expect(chain[1]!.tags.has(33922)).toBe(false);
  });

  it('has no overview for an image of one tile', () => {
    expect(ifds(writeCog(TILE, 10, 1, new Float32Array(TILE * 10), geo))).toHaveLength(1);
  });

  it('holds the pixels and overview means that geotiff.js reads back', async () => {
    const [width, height] = [300, 260];
    const pixels = Float32Array.from({ length: width * height }, (_, i) => (i % 13 === 0 ? Number.NaN : i));
    const bytes = writeCog(width, height, 1, pixels, geo);
    const tiff = await fromArrayBuffer(bytes.slice().buffer);
    expect(await tiff.getImageCount()).toBe(2);
    const image = await tiff.getImage(0);
    expect(image.isTiled).toBe(true);
    expect(image.getOrigin()).toEqual([10, 50, 0]);
    expect(image.getResolution()).toEqual([0.1, -0.1, 0]);
    expect(image.getGDALNoData()).toBeNaN();
    expect(image.getGeoKeys()).toMatchObject({ GTModelTypeGeoKey: 2, GeographicTypeGeoKey: 4326 });
    const [read] = (await image.readRasters()) as unknown as Float32Array[];
    expect(Array.from(read!)).toEqual(Array.from(pixels));
    const overview = await tiff.getImage(1);
    expect([overview.getWidth(), overview.getHeight()]).toEqual([150, 130]);
    const [half] = (await overview.readRasters()) as unknown as Float32Array[];
    // The mean of the finite values of each 2 x 2 block.
    for (const [x, y] of [
      [0, 0],
      [7, 3],
      [149, 129],
    ] as const) {
      const block = [0, 1]
        .flatMap((dy) => [0, 1].map((dx) => pixels[(2 * y + dy) * width + 2 * x + dx]!))
        .filter(Number.isFinite);
      expect(half![y * 150 + x]).toBeCloseTo(block.reduce((a, b) => a + b, 0) / block.length, 3);
    }
  });
});

describe('GTiff results', () => {
  it('writes a cube stored south-up north-up, a sample per band, with its EPSG code', async () => {
    const cube = cubeOf(
      [{ name: 'bands', type: 'bands', labels: ['a', 'b'] }, spatial('y', [0.5, 1.5, 2.5]), spatial('x', [10.5, 11.5])],
      (i) => i,
    );
    const tiff = await fromArrayBuffer((await cubeGeoTiff(cube, 1000)).slice().buffer);
    const image = await tiff.getImage(0);
    expect(image.getGeoKeys()).toMatchObject({ GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: 32632 });
    expect(image.getOrigin()).toEqual([10, 3, 0]);
    const [a, b] = (await image.readRasters()) as unknown as Float32Array[];
    // Band a holds 0..5 in rows from y = 0.5 (the south) up: the file's first row is the northern one.
    expect(Array.from(a!)).toEqual([4, 5, 2, 3, 0, 1]);
    expect(Array.from(b!)).toEqual([10, 11, 8, 9, 6, 7]);
  });

  it('refuses several time steps, and a cube over more cells than allowed', async () => {
    const steps = cubeOf([temporal(['2024-01-01', '2024-01-02']), spatial('y', [1, 0]), spatial('x', [0, 1])], () => 1);
    await expect(cubeGeoTiff(steps, 1000)).rejects.toMatchObject({
      code: 'FormatUnsuitable',
      message: /dimension 't' has 2 labels/,
    });
    const one = cubeOf([spatial('y', [1, 0]), spatial('x', [0, 1])], () => 1);
    await expect(cubeGeoTiff(one, 3)).rejects.toMatchObject({ code: 'ProcessGraphComplexity' });
  });
});
