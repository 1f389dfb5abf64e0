import { describe, expect, it } from 'vitest';
import { callback, cubeOf, run, spatial, temporal, valuesOf } from '../../../../test/support/cubes.ts';
import { DataCube, type ChunkArray, type CubeSource } from '../../cube/cube.ts';

const t = (n: number) =>
  temporal(Array.from({ length: n }, (_, i) => new Date(Date.UTC(2024, 0, 1 + i)).toISOString()));
const yx = [spatial('y', [25, 15, 5]), spatial('x', [5, 15])];

/** A source that counts the chunks read and the most held at once by the reader. */
function counting(cube: DataCube): { cube: DataCube; reads: string[] } {
  const reads: string[] = [];
  const source: CubeSource = {
    metadata: cube.metadata,
    readChunk: async (index, signal): Promise<ChunkArray> => {
      reads.push(index.join());
      return cube.source.readChunk(index, signal);
    },
  };
  return { cube: new DataCube(source), reads };
}

const mean = callback('mean', { data: { from_parameter: 'data' } });

describe('apply, reduce_dimension and apply_dimension over cubes', () => {
  it('apply gives the same values through a compiled kernel and through the interpreter', async () => {
    const cube = cubeOf([t(3), ...yx], (i) => (i % 4 === 0 ? NaN : i - 8));
    const logged: unknown[] = [];
    const compiled = (await run('apply', {
      data: cube,
      process: callback('absolute', { x: { from_parameter: 'x' } }),
    })) as DataCube;
    const interpreted = (await run(
      'apply',
      {
        data: cube,
        process: {
          process_graph: {
            i: { process_id: 'inspect', arguments: { data: { from_parameter: 'x' } } },
            a: { process_id: 'absolute', arguments: { x: { from_node: 'i' } }, result: true },
          },
        },
      },
      { services: { log: { write: (entry) => logged.push(entry.data) } } },
    )) as DataCube;
    const values = await valuesOf(compiled);
    expect(values).toEqual(await valuesOf(interpreted));
    expect(values.slice(0, 5)).toEqual([NaN, 7, 6, 5, NaN]);
    expect(logged.length).toBe(18);
  });

  it('reduce_dimension streams a long time axis chunk by chunk, reading each chunk once', async () => {
    const days = 200;
    const source = cubeOf([t(days), ...yx], (i) => (i % 7 === 0 ? NaN : Math.sin(i)), { chunkShape: [16, 3, 2] });
    const { cube, reads } = counting(source);
    const reduced = (await run('reduce_dimension', { data: cube, reducer: mean, dimension: 't' })) as DataCube;
    expect(reads).toEqual([]); // lazy: nothing read yet
    const values = await valuesOf(reduced);
    expect(reads.length).toBe(Math.ceil(days / 16));
    expect(new Set(reads).size).toBe(reads.length);
    for (let cell = 0; cell < 6; cell++) {
      const series = Array.from({ length: days }, (_, k) => k * 6 + cell)
        .filter((i) => i % 7 !== 0)
        .map(Math.sin);
      expect(values[cell]).toBeCloseTo(series.reduce((a, b) => a + b, 0) / series.length, 12);
    }
  });

  it('reduce_dimension over bands compiles band math (array_element and an element-wise formula)', async () => {
    const bands = { name: 'bands', type: 'bands' as const, labels: ['red', 'nir'] };
    const cube = cubeOf([bands, ...yx], (i) => (i < 6 ? 10 : 30) + i);
    const ndvi = {
      process_graph: {
        red: { process_id: 'array_element', arguments: { data: { from_parameter: 'data' }, label: 'red' } },
        nir: { process_id: 'array_element', arguments: { data: { from_parameter: 'data' }, label: 'nir' } },
        nd: {
          process_id: 'normalized_difference',
          arguments: { x: { from_node: 'nir' }, y: { from_node: 'red' } },
          result: true,
        },
      },
    };
    const result = (await run('reduce_dimension', { data: cube, reducer: ndvi, dimension: 'bands' })) as DataCube;
    expect(result.dimensions.map((d) => d.name)).toEqual(['y', 'x']);
    const values = await valuesOf(result);
    values.forEach((v, i) => expect(v).toBeCloseTo((36 + i - (10 + i)) / (36 + i + 10 + i), 12));
  });

  it('reducing the last dimension gives a number, not a cube', async () => {
    const cube = cubeOf([t(4)], (i) => i + 1);
    expect(await run('reduce_dimension', { data: cube, reducer: mean, dimension: 't' })).toBe(2.5);
    await expect(run('reduce_dimension', { data: cube, reducer: mean, dimension: 'bands' })).rejects.toMatchObject({
      code: 'DimensionNotAvailable',
    });
  });

  it('apply_dimension writes a series of another length along a new dimension, and refuses uneven ones', async () => {
    const cube = cubeOf([t(5), ...yx], (i) => i);
    const extrema = callback('extrema', { data: { from_parameter: 'data' } });
    const result = (await run('apply_dimension', {
      data: cube,
      process: extrema,
      dimension: 't',
      target_dimension: 'range',
    })) as DataCube;
    expect(result.dimensions.map((d) => [d.name, d.type, d.labels.length])).toEqual([
      ['range', 'other', 2],
      ['y', 'spatial', 3],
      ['x', 'spatial', 2],
    ]);
    expect((await valuesOf(result)).slice(0, 6)).toEqual([0, 1, 2, 3, 4, 5]);
    const uneven = cubeOf([t(3), ...yx], (i) => (i === 7 ? NaN : i));
    const sorted = callback('sort', { data: { from_parameter: 'data' } });
    const refused = (await run('apply_dimension', { data: uneven, process: sorted, dimension: 't' })) as DataCube;
    await expect(valuesOf(refused)).rejects.toMatchObject({ code: 'ProcessParameterInvalid' });
  });
});
