import { describe, expect, it } from 'vitest';
import { cubeOf, run, spatial, temporal, valuesOf } from '../../../../test/support/cubes.ts';
import type { DataCube } from '../../cube/cube.ts';

/** 4 × 4 pixels of 10 m, value row·10 + col, over one time step. */
const fine = () =>
  cubeOf(
    [temporal(['2024-01-01']), spatial('y', [35, 25, 15, 5]), spatial('x', [5, 15, 25, 35])],
    (i) => Math.floor(i / 4) * 10 + (i % 4),
  );
/** 2 × 2 pixels of 20 m over the same extent. */
const coarse = () => cubeOf([spatial('y', [30, 10]), spatial('x', [10, 30])], () => 0);

describe('resample_cube_spatial and resample_spatial', () => {
  it('takes the nearest source pixel, or a reducer of the pixels each target pixel holds', async () => {
    const near = (await run('resample_cube_spatial', { data: fine(), target: coarse() })) as DataCube;
    expect(near.dimension('x')!.labels).toEqual([10, 30]);
    // Target centres (10, 30) fall on source edges; the pixel whose half-open extent in pixel space holds them
    // is taken (the one to the right, and the one below).
    expect(await valuesOf(near)).toEqual([11, 13, 31, 33]);
    const average = (await run('resample_cube_spatial', {
      data: fine(),
      target: coarse(),
      method: 'average',
    })) as DataCube;
    expect(await valuesOf(average)).toEqual([5.5, 7.5, 25.5, 27.5]);
    const max = (await run('resample_cube_spatial', { data: fine(), target: coarse(), method: 'max' })) as DataCube;
    expect(await valuesOf(max)).toEqual([11, 13, 31, 33]);
  });

  it('resamples to a resolution, and refuses interpolating methods', async () => {
    const sum = (await run('resample_spatial', { data: fine(), resolution: 20, method: 'sum' })) as DataCube;
    expect(sum.dimension('y')!.labels).toEqual([30, 10]);
    expect(await valuesOf(sum)).toEqual([0 + 1 + 10 + 11, 2 + 3 + 12 + 13, 20 + 21 + 30 + 31, 22 + 23 + 32 + 33]);
    await expect(run('resample_spatial', { data: fine(), resolution: 20, method: 'bilinear' })).rejects.toMatchObject({
      code: 'ProcessParameterInvalid',
    });
  });

  it('warps to another CRS by nearest neighbour', async () => {
    const utm = cubeOf([spatial('y', [5757550, 5757450]), spatial('x', [404850, 404950])], (i) => i + 1);
    const warped = (await run('resample_spatial', { data: utm, projection: 4326, resolution: 0.0005 })) as DataCube;
    expect(warped.dimension('x')!.crs).toBe(4326);
    const values = await valuesOf(warped);
    expect(values.filter((v) => !Number.isNaN(v)).sort()).toEqual(expect.arrayContaining([1, 2, 3, 4]));
  });
});
