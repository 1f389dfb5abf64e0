import { describe, expect, it } from 'vitest';
import { build } from '../../test/build.ts';
import { publishedDataset } from '../../test/published-dataset.ts';

const CONFIG = 'instance.bbox = -13.5,6.9,-10.2,10.0\nprocessing.sync.max_cells = 100';

const loadAll = {
  load: {
    process_id: 'load_collection',
    arguments: { id: 'chirps', spatial_extent: null, temporal_extent: null },
    result: true,
  },
};

const post = (app: Awaited<ReturnType<typeof build>>['app'], body: unknown) =>
  app.inject({ method: 'POST', url: '/result', payload: body as Record<string, unknown> });

describe('POST /result limits and refusals', () => {
  it('refuses a result past processing.sync.max_cells with 400 pointing to batch jobs, answers one within it, refuses what a format cannot hold', async () => {
    const built = await build(CONFIG);
    await publishedDataset(built, 'chirps');
    // 3 days of a 7 x 7 grid: 147 cells.
    const past = await post(built.app, { process: { process_graph: loadAll } });
    expect(past.statusCode).toBe(400);
    expect(past.json()).toMatchObject({ code: 'ProcessGraphComplexity', message: expect.stringMatching(/batch job/) });

    const oneDay = await post(built.app, {
      process: {
        process_graph: {
          load: {
            process_id: 'load_collection',
            arguments: { id: 'chirps', spatial_extent: null, temporal_extent: ['2024-01-02', '2024-01-03'] },
          },
          first: {
            process_id: 'reduce_dimension',
            arguments: {
              data: { from_node: 'load' },
              dimension: 't',
              reducer: {
                process_graph: {
                  f: { process_id: 'first', arguments: { data: { from_parameter: 'data' } }, result: true },
                },
              },
            },
            result: true,
          },
        },
      },
    });
    expect(oneDay.statusCode).toBe(200);
    const cube = oneDay.json();
    expect(cube.type).toBe('DataCube');
    expect(cube.dimensions.map((d: { name: string }) => d.name)).toEqual(['bands', 'y', 'x']);
    // The published store holds zeros.
    expect((cube.data as number[][][]).flat(2).every((v) => v === 0)).toBe(true);
    // A GeoTIFF is one image: three time steps are not.
    const badFormat = await post(built.app, {
      process: {
        process_graph: {
          load: { ...loadAll.load, result: false },
          s: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format: 'GTiff' }, result: true },
        },
      },
    });
    expect(badFormat.statusCode).toBe(400);
    expect(badFormat.json()).toMatchObject({
      code: 'FormatUnsuitable',
      message: expect.stringMatching(/'t' has 3 labels/),
    });
    const unknownFormat = await post(built.app, {
      process: {
        process_graph: {
          load: { ...loadAll.load, result: false },
          s: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format: 'HDF4' }, result: true },
        },
      },
    });
    expect(unknownFormat.statusCode).toBe(400);
    expect(unknownFormat.json()).toMatchObject({
      code: 'ProcessParameterInvalid',
      message: expect.stringMatching(/JSON, GTiff/),
    });
  });

  it('answers scalars and arrays as JSON, and refuses a body without a graph or with a bad one', async () => {
    const { app } = await build(CONFIG);
    const sum = await post(app, {
      process: { process_graph: { s: { process_id: 'sum', arguments: { data: [1, 2, 3.5] }, result: true } } },
    });
    expect(sum.statusCode).toBe(200);
    expect(sum.json()).toBe(6.5);
    const missing = await post(app, { plan: 'x' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      id: 'ProcessGraphMissing',
      code: 'ProcessGraphMissing',
      message: 'The request has no process.process_graph.',
      links: [],
    });
    const twoResults = await post(app, {
      process: {
        process_graph: {
          a: { process_id: 'add', arguments: { x: 1, y: 2 }, result: true },
          b: { process_id: 'add', arguments: { x: 1, y: 2 }, result: true },
        },
      },
    });
    expect(twoResults.statusCode).toBe(400);
    expect(twoResults.json()).toMatchObject({ code: 'ProcessGraphInvalid' });
  });
});
