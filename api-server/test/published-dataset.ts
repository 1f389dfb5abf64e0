import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { periodRange } from '../../core/periods/index.ts';
import { gridCovering, type RasterGrid } from '../../core/stores/raster-grid.ts';
import { datasetKind } from '../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../core/resources/registry.ts';
import { RasterCubeWriter } from '../../core/stores/raster-cube.ts';
import type { Built } from './build.ts';

const BBOX: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];

/**
 * A published daily dataset with a real three-day Zarr v2 store, by default at 0.5 degrees with period i holding i
 * everywhere (`grid` and `plane` give others), and optionally a thumbnail.
 */
export async function publishedDataset(
  built: Built,
  name: string,
  options: { license?: string; thumbnail?: boolean; grid?: RasterGrid; plane?: (period: number) => Float32Array } = {},
) {
  const { cluster, storageRoot } = built;
  const grid = options.grid ?? gridCovering(BBOX, 0.5);
  const periods = periodRange('daily', '2024-01-01', '2024-01-03');
  const path = `datasets/${name}/versions/v1`;
  const writer = await RasterCubeWriter.create(join(storageRoot, path), {
    variable: 'precip',
    units: 'mm',
    periodType: 'daily',
    periods,
    grid,
    attributes: {},
  });
  // By default each period holds its index in every cell, so that periods can be told apart.
  for (let i = 0; i < periods.length; i++)
    await writer.append(options.plane?.(i) ?? new Float32Array(grid.lat.length * grid.lon.length).fill(i));
  const coverage = await writer.finish();
  if (options.thumbnail) {
    await mkdir(join(storageRoot, `datasets/${name}/thumbnails`), { recursive: true });
    await writeFile(join(storageRoot, `datasets/${name}/thumbnails/v1.png`), 'png');
  }
  await cluster.create(datasetKind, {
    apiVersion: API_VERSION,
    kind: 'Dataset',
    metadata: { name, namespace: 'default' },
    spec: {
      source: 'chirps-v3-daily',
      datasetName: `CHIRPS ${name}`,
      itemType: 'coverage',
      format: 'zarr',
      zarrVersion: 2,
      variable: 'precip',
      periodType: 'daily',
      units: 'mm',
      sourceName: 'Climate Hazards Center',
      sourceUrl: 'https://www.chc.ucsb.edu/data/chirps3',
      license: options.license ?? 'CC-BY-4.0',
      licenseUrl: 'https://example.org/license',
    },
  });
  await cluster.patchStatus(
    datasetKind,
    name,
    {
      type: 'merge',
      body: {
        status: {
          extent: coverage,
          publication: { status: 'published', publishedAt: '2024-01-04T00:00:00Z' },
          currentVersion: 'v1',
          versions: [{ id: 'v1', createdAt: '2024-01-04T00:00:00Z', format: 'zarr', coverage, path }],
          thumbnail: `datasets/${name}/thumbnails/v1.png`,
        },
      },
    },
    'default',
  );
  return coverage;
}
