import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { periodRange } from '../../../core/periods/index.ts';
import { gridCovering } from '../../../core/stores/raster-grid.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { RasterCubeWriter } from '../../../core/stores/raster-cube.ts';
import { build, type Built } from '../../test/build.ts';
import { publishedDataset } from '../../test/published-dataset.ts';
import { callback } from '../../../test/support/cubes.ts';

const CONFIG = 'instance.bbox = -13.5,6.9,-10.2,10.0\nprocessing.sync.max_cells = 100';

const loadAll = {
  load: {
    process_id: 'load_collection',
    arguments: { id: 'chirps', spatial_extent: null, temporal_extent: null },
    result: true,
  },
};

/** The whole published cube saved in `format`. */
const savedAs = (format: string) => ({
  process: {
    process_graph: {
      load: { ...loadAll.load, result: false },
      s: { process_id: 'save_result', arguments: { data: { from_node: 'load' }, format }, result: true },
    },
  },
});

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
              reducer: callback('first', { data: { from_parameter: 'data' } }),
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
    // The published store holds each period's index: 2024-01-02 is the second.
    expect((cube.data as number[][][]).flat(2).every((v) => v === 1)).toBe(true);
    // A GeoTIFF is one image: three time steps are not.
    const badFormat = await post(built.app, savedAs('GTiff'));
    expect(badFormat.statusCode).toBe(400);
    expect(badFormat.json()).toMatchObject({
      code: 'FormatUnsuitable',
      message: expect.stringMatching(/'t' has 3 labels/),
    });
    const unknownFormat = await post(built.app, savedAs('HDF4'));
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

  it('stops a run past the cells it may read, and an answer past its size, pointing to batch jobs', async () => {
    const reads = await build(`${CONFIG}\nprocessing.sync.max_read_cells = 100`);
    await publishedDataset(reads, 'chirps');
    const answers = await build(`${CONFIG}\nprocessing.sync.max_output_size = 200B`);
    await publishedDataset(answers, 'chirps');
    const firstOf = (temporal: [string, string]) => ({
      process: {
        process_graph: {
          load: {
            process_id: 'load_collection',
            arguments: { id: 'chirps', spatial_extent: null, temporal_extent: temporal },
          },
          first: {
            process_id: 'reduce_dimension',
            arguments: {
              data: { from_node: 'load' },
              dimension: 't',
              reducer: callback('first', { data: { from_parameter: 'data' } }),
            },
            result: true,
          },
        },
      },
    });
    // The store's one chunk holds three days of 49 cells: reading it is past 100 cells, though the answer holds 49.
    const reading = await post(reads.app, firstOf(['2024-01-01', '2024-01-04']));
    expect(reading.statusCode).toBe(400);
    expect(reading.json()).toMatchObject({
      code: 'ProcessGraphComplexity',
      message: expect.stringMatching(/more than the 100 cells a synchronous run may read.*batch job/),
    });
    // 49 cells answered as JSON take more than 200 bytes.
    const answering = await post(answers.app, firstOf(['2024-01-01', '2024-01-02']));
    expect(answering.statusCode).toBe(400);
    expect(answering.json()).toMatchObject({
      code: 'ProcessGraphComplexity',
      message: expect.stringMatching(/more than the 200 a synchronous run may answer.*batch job/),
    });
    const small = await post(answers.app, {
      process: { process_graph: { s: { process_id: 'sum', arguments: { data: [1, 2] }, result: true } } },
    });
    expect(small.json()).toBe(3);
  });

  it('stops a run whose client closed its connection, without an error', async () => {
    const built = await build('instance.bbox = -13.5,6.9,-10.2,10.0');
    await largeDataset(built, 'large');
    const url = await built.app.listen({ port: 0, host: '127.0.0.1' });
    const client = new AbortController();
    const request = fetch(`${url}/result`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(medianOfLarge),
      signal: client.signal,
    }).catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 30));
    client.abort();
    expect(await request).toBeInstanceOf(Error);
    const cancelled = () =>
      built.logLines().some((l) => l.msg === 'synchronous run cancelled: the client closed its connection');
    await expect.poll(cancelled, { timeout: 10_000 }).toBe(true);
    expect(built.logLines().filter((l) => (l.level as number) >= 50)).toEqual([]);
  });

  it('keeps answering other requests while a run reads and reduces chunk after chunk', async () => {
    const built = await build('instance.bbox = -13.5,6.9,-10.2,10.0');
    await largeDataset(built, 'large');
    const run = built.app
      .inject({
        method: 'POST',
        url: '/result',
        payload: medianOfLarge,
      })
      .then((response) => ({ response, at: performance.now() }));
    // Issued once the run has started reading: a server that ran the graph without yielding would answer it last.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const other = await built.app
      .inject({ url: '/collections' })
      .then((response) => ({ response, at: performance.now() }));
    const done = await run;
    expect(done.response.statusCode).toBe(200);
    expect(other.response.statusCode).toBe(200);
    expect(other.at).toBeLessThan(done.at);
  });

  it('answers /health over HTTP while a zonal statistics run decodes and reduces its chunks on worker threads', async () => {
    const built = await build('instance.bbox = -13.5,6.9,-10.2,10.0');
    // A year at 0.02 degrees: about 9,000,000 cells in 16 x 6 x 6 chunks, every one read by the run.
    await largeDataset(built, 'heavy', { resolution: 0.02, end: '2024-12-30', chunks: [60, 32, 32] });
    const url = await built.app.listen({ port: 0, host: '127.0.0.1' });
    const squares = [-13.4, -12.4, -11.4].map((west) => ({
      type: 'Feature',
      properties: {},
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [west, 7],
            [west + 0.9, 7],
            [west + 0.9, 9.9],
            [west, 9.9],
            [west, 7],
          ],
        ],
      },
    }));
    const zonal = {
      process: {
        process_graph: {
          load: {
            process_id: 'load_collection',
            arguments: { id: 'heavy', spatial_extent: null, temporal_extent: null },
          },
          zonal: {
            process_id: 'aggregate_spatial',
            arguments: {
              data: { from_node: 'load' },
              geometries: { type: 'FeatureCollection', features: squares },
              reducer: callback('mean', { data: { from_parameter: 'data' } }),
            },
            result: true,
          },
        },
      },
    };
    let finished = Infinity;
    const run = fetch(`${url}/result`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(zonal),
    }).then(async (response) => {
      const body = (await response.json()) as { data: number[][] };
      finished = performance.now();
      return { status: response.status, body };
    });
    // Probes one after the other while the run goes on: each is answered between two of its chunks.
    const probes: { status: number; at: number }[] = [];
    while (probes.length < 5) {
      const response = await fetch(`${url}/health`);
      await response.arrayBuffer();
      probes.push({ status: response.status, at: performance.now() });
    }
    const done = await run;
    expect(done.status).toBe(200);
    expect(done.body.data.length).toBe(3);
    expect(done.body.data[0]!.length).toBe(365);
    expect(probes.map((p) => p.status)).toEqual([200, 200, 200, 200, 200]);
    expect(probes.at(-1)!.at).toBeLessThan(finished);
  });
});

/** The median over time of the 240 days of `largeDataset`: about 1,000,000 cells read in 96 chunks. */
const medianOfLarge = {
  process: {
    process_graph: {
      load: {
        process_id: 'load_collection',
        arguments: { id: 'large', spatial_extent: null, temporal_extent: null },
      },
      median: {
        process_id: 'reduce_dimension',
        arguments: {
          data: { from_node: 'load' },
          dimension: 't',
          reducer: callback('median', { data: { from_parameter: 'data' } }),
        },
        result: true,
      },
    },
  },
};

/**
 * A published dataset of 240 days on a 0.05 degree grid (about 4,000 cells a day) in 24 x 4 chunks, or as
 * `options` say.
 */
async function largeDataset(
  built: Built,
  name: string,
  { resolution = 0.05, end = '2024-08-27', chunks = [10, 32, 32] } = {},
): Promise<void> {
  const grid = gridCovering([-13.5, 6.9, -10.2, 10.0], resolution);
  const periods = periodRange('daily', '2024-01-01', end);
  const path = `datasets/${name}/versions/v1`;
  const cells = grid.lat.length * grid.lon.length;
  const writer = await RasterCubeWriter.create(join(built.storageRoot, path), {
    variable: 'value',
    periodType: 'daily',
    periods,
    grid,
    attributes: {},
    chunks: chunks as [number, number, number],
  });
  for (let d = 0; d < periods.length; d++)
    await writer.append(Float32Array.from({ length: cells }, (_, c) => (c * d) % 97));
  const coverage = await writer.finish();
  await built.cluster.create(datasetKind, {
    apiVersion: API_VERSION,
    kind: 'Dataset',
    metadata: { name, namespace: 'default' },
    spec: { source: 'sample', datasetName: 'Large', format: 'zarr', zarrVersion: 2, periodType: 'daily' },
  });
  await built.cluster.patchStatus(
    datasetKind,
    name,
    {
      type: 'merge',
      body: {
        status: {
          currentVersion: 'v1',
          versions: [{ id: 'v1', createdAt: '2024-09-01T00:00:00Z', format: 'zarr', coverage, path }],
        },
      },
    },
    'default',
  );
}
