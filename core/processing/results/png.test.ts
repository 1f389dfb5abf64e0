import { describe, expect, it } from 'vitest';
import { memoryCube } from '../cube/memory.ts';
import { cubePng } from './png.ts';

const cube = () =>
  memoryCube({
    dimensions: [
      { name: 'y', type: 'spatial', axis: 'y', labels: [1, 0], crs: 'EPSG:4326', step: -1 },
      { name: 'x', type: 'spatial', axis: 'x', labels: [0, 1], crs: 'EPSG:4326', step: 1 },
    ],
    data: Float64Array.from([0, 1, 2, 3]),
  });

describe('PNG options', () => {
  it.each([
    [{ colormap: 'rainbow-unicorn' }, /colormap must be one of/],
    [{ range: [5, 1] }, /range must be \[min, max\]/],
    [{ range: [0] }, /range must be \[min, max\]/],
    [{ range: ['a', 'b'] }, /range must be \[min, max\]/],
  ])('refuses %j with ProcessParameterInvalid', async (options, message) => {
    await expect(cubePng(cube(), 100, undefined, options)).rejects.toMatchObject({
      code: 'ProcessParameterInvalid',
      message,
    });
  });

  it('draws a picture with a named colour map and range', async () => {
    const png = await cubePng(cube(), 100, undefined, { colormap: 'blues', range: [0, 10] });
    expect(Buffer.from(png.subarray(1, 4)).toString()).toBe('PNG');
  });
});
