import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { colorAt } from './colormap.ts';
import { renderGridThumbnail, renderThumbnail } from './thumbnail.ts';

/** Reads back the IHDR size and the unfiltered RGBA rows of a PNG written by encodePng. */
function decode(png: Buffer): { width: number; height: number; pixel: (x: number, y: number) => number[] } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const idatLength = png.readUInt32BE(33);
  expect(png.toString('latin1', 37, 41)).toBe('IDAT');
  const raw = inflateSync(png.subarray(41, 41 + idatLength));
  const stride = 1 + width * 4;
  return { width, height, pixel: (x, y) => [...raw.subarray(y * stride + 1 + x * 4, y * stride + 5 + x * 4)] };
}

describe('renderThumbnail', () => {
  it('colours values over the style range and leaves no-data transparent', () => {
    const values = Float32Array.from([0, 50, 100, Number.NaN, -9999, 100]);
    const png = renderThumbnail(values, 3, 2, { colormap: 'viridis', range: [0, 100], nodata: -9999 })!;
    const image = decode(png);
    // Each cell is a block of about 85 × 85 pixels: the image is 256 × 171.
    const cell = (x: number, y: number) => image.pixel(Math.floor((x + 0.5) * (256 / 3)), Math.floor((y + 0.5) * 85));
    expect(cell(0, 0)).toEqual([...colorAt('viridis', 0), 255]);
    expect(cell(1, 0)).toEqual([...colorAt('viridis', 0.5), 255]);
    expect(cell(2, 0)).toEqual([...colorAt('viridis', 1), 255]);
    expect(cell(0, 1)[3]).toBe(0);
    expect(cell(1, 1)[3]).toBe(0);
  });

  it('scales a small grid up by nearest neighbour to 256 pixels on its longer side', () => {
    const image = decode(renderThumbnail(Float32Array.from([0, 100]), 2, 1, { colormap: 'magma', range: [0, 100] })!);
    expect([image.width, image.height]).toEqual([256, 128]);
    // Nearest neighbour: the left half is the first cell's colour to its last pixel, the right half the second's.
    expect(image.pixel(127, 127)).toEqual([...colorAt('magma', 0), 255]);
    expect(image.pixel(128, 0)).toEqual([...colorAt('magma', 1), 255]);
  });

  it('scales the longer side down to 256 pixels', () => {
    const image = decode(renderThumbnail(new Float32Array(1000 * 500).fill(1), 1000, 500, { colormap: 'blues' })!);
    expect([image.width, image.height]).toEqual([256, 128]);
  });

  it('renders nothing when no cell has a value, so the previous image stays', () => {
    expect(
      renderThumbnail(Float32Array.from([Number.NaN, 5]), 2, 1, { colormap: 'viridis', nodata: 5 }),
    ).toBeUndefined();
  });

  it('draws a grid with multiscale levels from the level that fits its pixels: each pixel a mean of cells', () => {
    // 2048 × 2048 cells alternating 0 and 100: a thumbnail pixel spans 8 × 8 of them, whose mean is 50, where
    // picking one cell per pixel would show only 0s or only 100s.
    const side = 2048;
    const grid = {
      resolution: 0.01,
      lon: Float64Array.from({ length: side }, (_, i) => (i + 0.5) * 0.01),
      lat: Float64Array.from({ length: side }, (_, j) => (side - j - 0.5) * 0.01),
    };
    const values = Float32Array.from({ length: side * side }, (_, p) => ((p + Math.floor(p / side)) % 2) * 100);
    const image = decode(renderGridThumbnail(values, grid, { colormap: 'viridis', range: [0, 100] })!);
    expect([image.width, image.height]).toEqual([256, 256]);
    for (const [x, y] of [
      [0, 0],
      [17, 200],
      [255, 255],
    ] as const)
      expect(image.pixel(x, y)).toEqual([...colorAt('viridis', 0.5), 255]);
  });
});
