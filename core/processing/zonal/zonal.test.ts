import { describe, expect, it } from 'vitest';
import { python } from '../../../test/support/python.ts';
import { cubeOf, run, spatial, temporal, valuesOf } from '../../../test/support/cubes.ts';
import { DataCube } from '../cube/cube.ts';
import { sharedMemoryOf } from '../kernels/wasm/shared-memory.ts';
import type { Geometry, MaybeEmptyFeature } from '../values/geojson.ts';
import type { RasterGrid } from './grid.ts';
import { zonalTable } from './table.ts';

/**
 * A 6 × 5 grid of 1° cells in EPSG:4326 (x 0..6, y 5..0, north up) over two time steps; the value of a cell is
 * t·100 + row·10 + col, and the cell at t0, row 3, col 1 is nodata.
 */
function grid(): DataCube {
  const x = spatial('x', [0.5, 1.5, 2.5, 3.5, 4.5, 5.5], 'EPSG:4326');
  const y = spatial('y', [4.5, 3.5, 2.5, 1.5, 0.5], 'EPSG:4326');
  return cubeOf(
    [temporal(['2024-01-01', '2024-01-02']), y, x],
    (i) => {
      const [t, row, col] = [Math.floor(i / 30), Math.floor((i % 30) / 6), i % 6];
      return t === 0 && row === 3 && col === 1 ? NaN : t * 100 + row * 10 + col;
    },
    { chunkShape: [1, 3, 4] },
  );
}

/**
 * The grid of `grid()` over `steps` time steps (at most 9), all in one chunk along time (chunks of steps × 3 × 4),
 * float32; `value(t, row, col)` gives each cell.
 */
function stepsCube(steps: number, value: (t: number, row: number, col: number) => number): DataCube {
  return cubeOf(
    [
      temporal(Array.from({ length: steps }, (_, t) => `2024-01-0${t + 1}`)),
      spatial('y', [4.5, 3.5, 2.5, 1.5, 0.5], 'EPSG:4326'),
      spatial('x', [0.5, 1.5, 2.5, 3.5, 4.5, 5.5], 'EPSG:4326'),
    ],
    (i) => value(Math.floor(i / 30), Math.floor((i % 30) / 6), i % 6),
    { chunkShape: [steps, 3, 4], float32: true },
  );
}

const square = (x0: number, y0: number, x1: number, y1: number) => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
  [x0, y0],
];
const feature = (geometry: Geometry | null, id?: string): Record<string, unknown> => ({
  type: 'Feature',
  ...(id ? { id } : {}),
  geometry,
  properties: {},
});
const mean = {
  process_graph: { m: { process_id: 'mean', arguments: { data: { from_parameter: 'data' } }, result: true } },
};
const reducer = (process: string) => ({
  process_graph: { r: { process_id: process, arguments: { data: { from_parameter: 'data' } }, result: true } },
});

const geometries = {
  type: 'FeatureCollection',
  features: [
    feature({ type: 'Polygon', coordinates: [square(1, 1, 3, 4)] }, 'rectangle'),
    feature(
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [4.2, 0],
            [0, 4.2],
            [0, 0],
          ],
        ],
      },
      'triangle',
    ),
    feature({ type: 'Polygon', coordinates: [square(0, 0, 5, 5), square(1, 1, 3, 3)] }, 'holed'),
    feature({ type: 'Point', coordinates: [4.7, 0.2] }, 'point'),
    feature(null, 'empty'),
    feature({ type: 'MultiPolygon', coordinates: [[square(0, 4, 1, 5)], [square(5, 0, 6, 1)]] }, 'corners'),
  ],
};

describe('aggregate_spatial by pixel centre, on hand-computed grids and polygons', () => {
  it('computes means, sums and counts per geometry and time step, nodata left out', async () => {
    const cube = grid();
    const result = (await run('aggregate_spatial', { data: cube, geometries, reducer: mean })) as DataCube;
    expect(result.dimensions.map((d) => [d.name, d.type, d.labels])).toEqual([
      ['geometry', 'geometry', ['rectangle', 'triangle', 'holed', 'point', 'empty', 'corners']],
      ['t', 'temporal', ['2024-01-01', '2024-01-02']],
    ]);
    // rectangle: rows 1-3 × cols 1-2 (11 12 21 22 31 32), 31 nodata at t0; triangle: cells with col ≤ row - 1
    // (10; 20 21; 30 31 32; 40 41 42 43), 31 nodata at t0; holed: rows 0-4 × cols 0-4 (550) without
    // 21 22 31 32 (106); point: 44; corners: 0 and 45.
    expect(await valuesOf(result)).toEqual([
      98 / 5,
      121.5,
      279 / 9,
      131,
      444 / 21,
      444 / 21 + 100,
      44,
      144,
      NaN,
      NaN,
      22.5,
      122.5,
    ]);
    const sums = (await run('aggregate_spatial', { data: cube, geometries, reducer: reducer('sum') })) as DataCube;
    expect(await valuesOf(sums)).toEqual([98, 729, 279, 1310, 444, 2544, 44, 144, NaN, NaN, 45, 245]);
    const counts = (await run('aggregate_spatial', { data: cube, geometries, reducer: reducer('count') })) as DataCube;
    expect(await valuesOf(counts)).toEqual([5, 6, 9, 10, 21, 21, 1, 1, NaN, NaN, 2, 2]);
  });

  it('adds total and valid counts as a dimension when asked, and refuses an existing name', async () => {
    const result = (await run('aggregate_spatial', {
      data: grid(),
      geometries: { type: 'Polygon', coordinates: [square(1, 1, 3, 4)] },
      reducer: mean,
      target_dimension: 'stats',
    })) as DataCube;
    expect(result.dimensions.map((d) => d.name)).toEqual(['geometry', 't', 'stats']);
    expect(result.dimension('stats')!.labels).toEqual(['value', 'total_count', 'valid_count']);
    expect(await valuesOf(result)).toEqual([19.6, 6, 5, 121.5, 6, 6]);
    await expect(
      run('aggregate_spatial', { data: grid(), geometries, reducer: mean, target_dimension: 't' }),
    ).rejects.toMatchObject({ code: 'TargetDimensionExists' });
  });

  it('reads every time step of a chunk of several alike, by pixel centre and by coverage', async () => {
    // Six steps in each chunk: a mean and a sum read four at once, then the last two as a group of their own. The
    // value of a cell is t·100 + row·10 + col; (t0, row 3, col 1) and (t5, row 1, col 2) are nodata.
    const steps = 6;
    const value = (t: number, row: number, col: number) =>
      (t === 0 && row === 3 && col === 1) || (t === 5 && row === 1 && col === 2) ? NaN : t * 100 + row * 10 + col;
    const cube = stepsCube(steps, value);
    const times = Array.from({ length: steps }, (_, t) => t);
    const meanOf = (cells: [number, number, number][], t: number) => {
      const valid = cells.filter(([row, col]) => !Number.isNaN(value(t, row, col)));
      const weight = valid.reduce((sum, [, , w]) => sum + w, 0);
      return valid.reduce((sum, [row, col, w]) => sum + w * value(t, row, col), 0) / weight;
    };
    const expectClose = (actual: number[], expected: number[]) => {
      expect(actual).toHaveLength(expected.length);
      actual.forEach((a, i) => expect(a).toBeCloseTo(expected[i]!, 9));
    };
    // Pixel centre: rows 1-3 × cols 1-2.
    const rectangle = [1, 2, 3].flatMap((row) => [1, 2].map((col): [number, number, number] => [row, col, 1]));
    const centre = (await run('aggregate_spatial', {
      data: cube,
      geometries: { type: 'Polygon', coordinates: [square(1, 1, 3, 4)] },
      reducer: mean,
    })) as DataCube;
    expectClose(
      Array.from(await valuesOf(centre)),
      times.map((t) => meanOf(rectangle, t)),
    );
    // Coverage: x 0.5 to 2.5 over rows 3 and 2 (y 1 to 3): half of col 0 and col 2, all of col 1.
    const band = [2, 3].flatMap((row) =>
      [0, 1, 2].map((col): [number, number, number] => [row, col, col === 1 ? 1 : 0.5]),
    );
    const coverage = (await run('aggregate_spatial', {
      data: cube,
      geometries: { type: 'Polygon', coordinates: [square(0.5, 1, 2.5, 3)] },
      reducer: mean,
      weighting: 'coverage',
    })) as DataCube;
    expectClose(
      Array.from(await valuesOf(coverage)),
      times.map((t) => meanOf(band, t)),
    );
  });

  it("counts a centre on a polygon's top or left edge (in pixel space: north and west here), not on the others", async () => {
    // Edges through the centres x = 0.5 and 2.5, y = 0.5 and 2.5: columns 0-1 of rows 2 and 3 (y = 2.5, 1.5);
    // the second square, sharing the edge x = 2.5, takes columns 2-3: every centre belongs to one square.
    const result = (await run('aggregate_spatial', {
      data: grid(),
      geometries: {
        type: 'FeatureCollection',
        features: [
          feature({ type: 'Polygon', coordinates: [square(0.5, 0.5, 2.5, 2.5)] }),
          feature({ type: 'Polygon', coordinates: [square(2.5, 0.5, 4.5, 2.5)] }),
        ],
      },
      reducer: reducer('sum'),
    })) as DataCube;
    expect((await valuesOf(result)).filter((_, i) => i % 2 === 1)).toEqual([
      20 + 21 + 30 + 31 + 400,
      22 + 23 + 32 + 33 + 400,
    ]);
  });

  it('adds a mean over several chunks in space and time in chunk order, run by run: the same bits', async () => {
    // 9 steps × 10 × 10 in chunks of 6 × 4 × 4; the square covers the centres of rows 1-9, columns 0-8,
    // so it reaches 3 × 3 spatial chunks in each of 2 chunks of time steps, and its rows run across chunk borders.
    const [steps, n, side] = [9, 10, 4];
    const value = (t: number, row: number, col: number) =>
      (t + row + col) % 11 === 0 ? NaN : Math.sqrt(((t * 100 + row * 10 + col) * 7919) % 1000) * 10.1;
    const centres = Array.from({ length: n }, (_, i) => i + 0.5);
    const cube = cubeOf(
      [
        temporal(Array.from({ length: steps }, (_, t) => `2024-01-0${t + 1}`)),
        spatial('y', [...centres].reverse(), 'EPSG:4326'),
        spatial('x', centres, 'EPSG:4326'),
      ],
      (i) => value(Math.floor(i / (n * n)), Math.floor((i % (n * n)) / n), i % n),
      { chunkShape: [6, side, side] },
    );
    const result = (await run('aggregate_spatial', {
      data: cube,
      geometries: { type: 'Polygon', coordinates: [square(0.2, 0.2, 8.8, 8.8)] },
      reducer: mean,
    })) as DataCube;
    // Chunks in order (rows of chunks, then columns); in each, a run of the square's pixels consecutive in the
    // chunk's memory (across rows where the square spans the chunk's width) summed from 0, then added to the
    // total: the order the results are computed in. Float64 values, so that another order of the additions
    // gives other bits (float32 values would add up exactly in any order).
    const inside = (row: number, col: number) => row >= 1 && row <= 9 && col <= 8;
    const expected = Array.from({ length: steps }, (_, t) => {
      let [sum, count] = [0, 0];
      for (let r0 = 0; r0 < n; r0 += side)
        for (let c0 = 0; c0 < n; c0 += side) {
          let run: number | undefined;
          for (let row = r0; row < Math.min(n, r0 + side); row++)
            for (let col = c0; col < Math.min(n, c0 + side); col++) {
              if (!inside(row, col)) {
                if (run !== undefined) sum += run;
                run = undefined;
                continue;
              }
              const v = value(t, row, col);
              run ??= 0;
              if (Number.isNaN(v)) continue;
              run += v;
              count++;
            }
          if (run !== undefined) sum += run;
        }
      return sum / count;
    });
    expect(Array.from(await valuesOf(result))).toEqual(expected);
  });

  it('folds min, max, count and mean of a geometry in the chunk that reaches it first, then adds later chunks', async () => {
    // Five steps in one chunk along time (four read at once, then one); chunks of 3 × 4 pixels. The last chunk
    // (rows 3-4, columns 4-5) holds runs of "whole", which the first chunk reached, and of "corner", which it
    // reaches first. The value of a cell is t·100 + row·10 + col; (t1, row 0, col 0) and (t4, row 4, col 5) are
    // nodata. Whole numbers, so that every order of the additions gives the same mean.
    const steps = 5;
    const value = (t: number, row: number, col: number) =>
      (t === 1 && row === 0 && col === 0) || (t === 4 && row === 4 && col === 5) ? NaN : t * 100 + row * 10 + col;
    const cube = stepsCube(steps, value);
    const polygons = {
      type: 'FeatureCollection',
      features: [
        feature({ type: 'Polygon', coordinates: [square(0, 0, 6, 5)] }, 'whole'),
        feature({ type: 'Polygon', coordinates: [square(4, 0, 6, 2)] }, 'corner'),
      ],
    };
    const cells = [
      Array.from({ length: 30 }, (_, i) => [Math.floor(i / 6), i % 6] as const),
      [3, 4].flatMap((row) => [4, 5].map((col) => [row, col] as const)),
    ];
    const reduce = {
      mean: (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length,
      min: (v: number[]) => Math.min(...v),
      max: (v: number[]) => Math.max(...v),
      count: (v: number[]) => v.length,
    };
    for (const [process, of] of Object.entries(reduce)) {
      const result = (await run('aggregate_spatial', {
        data: cube,
        geometries: polygons,
        reducer: reducer(process),
      })) as DataCube;
      const expected = cells.flatMap((geometry) =>
        Array.from({ length: steps }, (_, t) =>
          of(geometry.map(([row, col]) => value(t, row, col)).filter((v) => !Number.isNaN(v))),
        ),
      );
      expect(Array.from(await valuesOf(result)), process).toEqual(expected);
    }
  });

  it('gives the same bits from float32 chunks in a shared WebAssembly memory (the SIMD kernel) as from others', async () => {
    // 9 steps (two groups of four planes and one) × 120 × 120 float32 in one chunk of 518 KB, in a WebAssembly
    // memory of its own; values of magnitudes 1e-20 to 1e19, so that adding them in another order gives other bits.
    const [steps, n] = [9, 120];
    const centres = Array.from({ length: n }, (_, i) => i * 0.5 + 0.25);
    const cube = cubeOf(
      [
        temporal(Array.from({ length: steps }, (_, t) => `2024-01-0${t + 1}`)),
        spatial('y', [...centres].reverse(), 'EPSG:4326'),
        spatial('x', centres, 'EPSG:4326'),
      ],
      (i) => (i % 13 === 0 ? NaN : Math.fround(((i * 7919) % 1000) * 10 ** ((i % 40) - 20))),
      { chunkShape: [steps, n, n], float32: true },
    );
    const lent = await cube.source.lendChunk!([0, 0, 0]);
    expect(sharedMemoryOf(lent)).toBeDefined();
    // The same chunk lent from a plain SharedArrayBuffer: read by the JavaScript loop.
    const plain = new DataCube({
      metadata: cube.source.metadata,
      readChunk: () => Promise.resolve(lent.slice()),
      lendChunk: () => {
        const copy = new Float32Array(new SharedArrayBuffer(lent.byteLength));
        copy.set(lent);
        return Promise.resolve(copy);
      },
    });
    const next = random(7);
    const polygons = {
      type: 'FeatureCollection',
      features: [star(next, 20, 30, 15, 24), star(next, 40, 25, 12, 9), star(next, 33, 33, 20, 40, true)].map((ring) =>
        feature({ type: 'Polygon', coordinates: [ring] }),
      ),
    };
    for (const process of ['mean', 'sum']) {
      const [inMemory, elsewhere] = await Promise.all(
        [cube, plain].map(
          async (data) =>
            await valuesOf(
              (await run('aggregate_spatial', { data, geometries: polygons, reducer: reducer(process) })) as DataCube,
            ),
        ),
      );
      expect(inMemory.filter(Number.isFinite)).toHaveLength(3 * steps);
      expect(
        inMemory.every((v, i) => Object.is(v, elsewhere[i])),
        process,
      ).toBe(true);
    }
  });

  it('runs reducers that need every value (median) and interpreted ones, with the same values', async () => {
    const polygon = { type: 'Polygon', coordinates: [square(0, 0, 5, 5), square(1, 1, 3, 3)] };
    const median = (await run('aggregate_spatial', {
      data: grid(),
      geometries: polygon,
      reducer: reducer('median'),
    })) as DataCube;
    const interpreted = (await run('aggregate_spatial', {
      data: grid(),
      geometries: polygon,
      reducer: {
        process_graph: {
          s: { process_id: 'sort', arguments: { data: { from_parameter: 'data' } } },
          m: { process_id: 'median', arguments: { data: { from_node: 's' } }, result: true },
        },
      },
    })) as DataCube;
    expect(await valuesOf(median)).toEqual(await valuesOf(interpreted));
    expect((await valuesOf(median))[0]).toBe(20);
  });
});

/** Deterministic pseudo-random numbers. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

/** A star-shaped ring around (cx, cy), counter-clockwise or not. */
function star(
  next: () => number,
  cx: number,
  cy: number,
  radius: number,
  vertices: number,
  clockwise = false,
): number[][] {
  const ring = Array.from({ length: vertices }, (_, i) => {
    const angle = ((clockwise ? -1 : 1) * 2 * Math.PI * i) / vertices;
    const r = radius * (0.35 + 0.65 * next());
    return [cx + r * Math.cos(angle), cy + r * Math.sin(angle)];
  });
  return [...ring, ring[0]!];
}

describe('exact coverage fractions', () => {
  // A UTM grid of 30 m cells far from the origin, 24 × 18 cells, north up.
  const grid: RasterGrid = {
    nx: 24,
    ny: 18,
    x0: 412_035,
    dx: 30,
    y0: 5_765_040,
    dy: -30,
    crs: 'EPSG:32632',
    xAxis: 2,
    yAxis: 1,
  };
  const next = random(42);
  const X = (f: number) => grid.x0 + f * grid.nx * grid.dx;
  const Y = (f: number) => grid.y0 + f * grid.ny * grid.dy;
  const polygons: Geometry[] = [
    ...Array.from({ length: 8 }, (_, k): Geometry => ({
      type: 'Polygon',
      coordinates: [
        star(next, X(0.2 + 0.6 * next()), Y(0.2 + 0.6 * next()), 90 + 150 * next(), 7 + k * 3, k % 2 === 1),
      ],
    })),
    { type: 'Polygon', coordinates: [star(next, X(0.5), Y(0.5), 240, 24), star(next, X(0.5), Y(0.5), 60, 9, true)] },
    {
      type: 'MultiPolygon',
      coordinates: [[star(next, X(0.2), Y(0.3), 80, 10)], [star(next, X(0.8), Y(0.7), 100, 13)]],
    },
    // Vertices exactly on grid lines and a rectangle on cell edges.
    {
      type: 'Polygon',
      coordinates: [
        [
          [X(0.25), Y(0.25)],
          [X(0.75), Y(0.25)],
          [X(0.5), Y(0.75)],
          [X(0.25), Y(0.25)],
        ],
      ],
    },
    { type: 'Polygon', coordinates: [square(grid.x0 + 60, grid.y0 - 150, grid.x0 + 210, grid.y0 - 30)] },
    // Beyond the grid on two sides.
    { type: 'Polygon', coordinates: [square(grid.x0 - 100, grid.y0 - 700, grid.x0 + 95, grid.y0 + 40)] },
  ];
  const features: MaybeEmptyFeature[] = polygons.map((geometry) => ({ geometry, properties: {} }));

  it('are within 1e-9 of the polygon areas Python shapely clips from each cell', async () => {
    const table = zonalTable(features, 'EPSG:32632', grid, 'coverage');
    const reference = await python<number[][][]>(
      `
import json, sys
from shapely.geometry import box, shape
grid, polygons = json.loads(sys.argv[1]), json.loads(sys.argv[2])
out = []
for geometry in polygons:
    g = shape(geometry)
    cells = []
    for r in range(grid['ny']):
        for c in range(grid['nx']):
            x0 = grid['x0'] + c * grid['dx']; y0 = grid['y0'] + r * grid['dy']
            cell = box(min(x0, x0 + grid['dx']), min(y0, y0 + grid['dy']), max(x0, x0 + grid['dx']), max(y0, y0 + grid['dy']))
            a = cell.intersection(g).area / cell.area
            if a > 0:
                cells.append([r * grid['nx'] + c, a])
    out.append(cells)
print(json.dumps(out))
`,
      [JSON.stringify(grid), JSON.stringify(polygons)],
    );
    let compared = 0;
    table.entries.forEach((entry, g) => {
      const ours = new Map(entry!.cells.map((cell, i) => [cell, entry!.weights[i]!]));
      const theirs = new Map(reference[g]!.map(([cell, a]) => [cell!, a!]));
      for (const cell of new Set([...ours.keys(), ...theirs.keys()])) {
        const [a, b] = [ours.get(cell) ?? 0, theirs.get(cell) ?? 0];
        expect(Math.abs(a - b), `polygon ${g}, cell ${cell}: ${a} vs shapely ${b}`).toBeLessThanOrEqual(1e-9);
        compared++;
      }
    });
    expect(compared).toBeGreaterThan(500);
    // Interior cells count fully, and the fractions add up to the polygon's area in cells.
    expect(table.entries[11]!.weights.every((w) => w === 1)).toBe(true);
  }, 60_000);

  it('weight the mean, sum and count of aggregate_spatial with weighting "coverage"', async () => {
    const cube = cubeOf(
      [spatial('y', [1.5, 0.5], 'EPSG:4326'), spatial('x', [0.5, 1.5, 2.5], 'EPSG:4326')],
      (i) => [1, 2, 3, 4, 5, 6][i]!,
    );
    // Covers the right half of column 0 and all of column 1 of the top row, a quarter of (1, 2)'s cell.
    const polygon = {
      type: 'Polygon',
      coordinates: [
        [
          [0.5, 1],
          [2, 1],
          [2, 2],
          [0.5, 2],
          [0.5, 1],
        ],
      ],
    };
    const weighted = async (process: string) =>
      valuesOf(
        (await run('aggregate_spatial', {
          data: cube,
          geometries: polygon,
          reducer: reducer(process),
          weighting: 'coverage',
        })) as DataCube,
      );
    expect(await weighted('sum')).toEqual([0.5 * 1 + 2]);
    expect(await weighted('count')).toEqual([1.5]);
    expect(await weighted('mean')).toEqual([(0.5 * 1 + 2) / 1.5]);
    expect(await weighted('max')).toEqual([2]);
    const centre = (await run('aggregate_spatial', {
      data: cube,
      geometries: polygon,
      reducer: reducer('mean'),
    })) as DataCube;
    expect(await valuesOf(centre)).toEqual([1.5]);
    await expect(
      run('aggregate_spatial', { data: cube, geometries: polygon, reducer: reducer('median'), weighting: 'coverage' }),
    ).rejects.toMatchObject({ code: 'ProcessParameterInvalid' });
  });
});
