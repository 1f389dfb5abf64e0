/**
 * The `analytics-table` task: one build of an AnalyticsTable (core/analytics). It extends the previous version
 * when it was computed from an earlier version of the same dataset with the same collection file (only the
 * periods holding a changed day are computed, days appended to its open periods folded into their kept statistics;
 * the other rows of their files (a month's, or a year's own) are copied, and the files without a changed period are
 * hard-linked), else computes the whole table; publishes the new version's directory atomically beside the others,
 * and removes the versions retention no longer keeps.
 * A workflow source is run with the engine over the datasets it loads and its result cube aggregated the same
 * way, always whole: an index such as SPI depends on the whole history, so no day stands alone.
 */
import { z } from 'zod';
import { buildAnalytics } from '../../core/analytics/build.ts';
import { changedDays } from '../../core/analytics/changes.ts';
import { workflowCallGraph, workflowSourceVersion } from '../../core/analytics/workflow-source.ts';
import { orgUnitCoverage } from '../../core/analytics/coverage-cache.ts';
import { publishAnalyticsBuild } from '../../core/analytics/publish.ts';
import { isPartitioned, readOpenPeriods, removeUnkeptVersions } from '../../core/analytics/table-file.ts';
import { removeTree } from '../../core/files/durable.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { datasetCollections } from '../../core/processing/collections/datasets.ts';
import { storedFeatureCollections } from '../../core/processing/collections/feature-collections.ts';
import { isCube, type DataCube } from '../../core/processing/cube/cube.ts';
import { isProcessingError, runProcessGraph } from '../../core/processing/index.ts';
import { pinnedResources } from '../../core/processing/jobs/pinned.ts';
import { storedWorkflows } from '../../core/processing/workflows.ts';
import { gridOf, type RasterGrid } from '../../core/processing/zonal/grid.ts';
import { dnsLabel } from '../../core/resources/common.ts';
import type { AnalyticsTableVersion } from '../../core/resources/analytics-table/schema.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../core/resources/feature-collection/schema.ts';
import { workflowKind, type Workflow } from '../../core/resources/workflow/schema.ts';
import { RunError } from '../../core/runs/errors.ts';
import {
  analyticsTableDir,
  analyticsTablePath,
  analyticsTableStaging,
  newVersionId,
  storeFile,
} from '../../core/stores/layout.ts';
import { analyticsTableInputSchema, type AnalyticsTableInput } from './analytics-table-input.ts';
import type { Task, TaskContext } from './protocol.ts';

const removeTableInputSchema = z.object({ table: dnsLabel, storageRoot: z.string().min(1) });

const sameGrid = (a: RasterGrid, b: RasterGrid) =>
  a.nx === b.nx &&
  a.ny === b.ny &&
  [
    [a.x0, b.x0],
    [a.dx, b.dx],
    [a.y0, b.y0],
    [a.dy, b.dy],
  ].every(([p, q]) => Math.abs(p! - q!) <= Math.abs(a.dx) * 1e-6);

const storesOf = (input: AnalyticsTableInput) => ({
  cluster: pinnedResources(input.resources as KubeObject[]),
  namespace: input.namespace,
  storageRoot: input.storageRoot,
});

async function openCube(input: AnalyticsTableInput, dataset: string) {
  const collections = datasetCollections(storesOf(input));
  const opened = await collections.open(dataset, { spatialExtent: null, temporalExtent: null, bands: null });
  if (!opened) throw new RunError('SourceNotFound', `Dataset ${dataset} has no served Zarr version to aggregate.`);
  return { cube: opened.cube, version: String(opened.properties?.version) };
}

/** The population of each cell, from the first time step of the population dataset on the same grid. */
async function populationWeights(input: AnalyticsTableInput, grid: RasterGrid, label: string): Promise<Float64Array> {
  const { cube } = await openCube(input, input.spec.populationDataset!);
  if (!sameGrid(gridOf(cube), grid))
    throw new RunError(
      'InvalidParameters',
      `Population dataset ${input.spec.populationDataset} is not on the grid of ${label}.`,
    );
  const [, , cy, cx] = cube.metadata.chunkShape as [number, number, number, number];
  const weights = new Float64Array(grid.nx * grid.ny);
  for (let iy = 0; iy * cy < grid.ny; iy++)
    for (let ix = 0; ix * cx < grid.nx; ix++) {
      const chunk = await cube.source.readChunk([0, 0, iy, ix]);
      const h = Math.min(cy, grid.ny - iy * cy);
      const w = Math.min(cx, grid.nx - ix * cx);
      for (let r = 0; r < h; r++)
        for (let c = 0; c < w; c++) weights[(iy * cy + r) * grid.nx + ix * cx + c] = chunk[r * w + c]!;
    }
  return weights;
}

/**
 * A workflow that fails, when it is run or as its result is read, fails for its graph or arguments, which the
 * table's author fixes: the build fails with the engine's code and message, not as a worker error.
 */
const sourceFailure =
  (label: string) =>
  (err: unknown): never => {
    if (isProcessingError(err))
      throw new RunError('InvalidParameters', `The ${label} failed: ${err.code}: ${err.message}`);
    throw err;
  };

/** What a build aggregates: the cube, the version it records, and, for a dataset, what says which days changed. */
interface OpenedSource {
  cube: DataCube;
  sourceVersion: string;
  dataset?: Dataset;
  /** The name the messages give the source. */
  label: string;
}

async function openDatasetSource(input: AnalyticsTableInput, name: string): Promise<OpenedSource> {
  const dataset = await storesOf(input).cluster.get<Dataset>(datasetKind, name, input.namespace);
  if (!dataset) throw new RunError('SourceNotFound', `Dataset ${name} has nothing served.`);
  const { cube, version: sourceVersion } = await openCube(input, name);
  const band = String(cube.dimensions[1]?.labels[0]);
  if (input.spec.source.band !== undefined && input.spec.source.band !== band)
    throw new RunError('InvalidParameters', `Dataset ${name} has no variable ${input.spec.source.band}.`);
  return { cube, sourceVersion, dataset, label: `dataset ${name}` };
}

/**
 * The workflow's result, run by the engine as a batch job runs a graph; it must be a raster cube of one band over
 * time, as a dataset is (time, bands, y, x), whose time steps are days or longer (a monthly index's step is its month).
 */
async function openWorkflowSource(
  input: AnalyticsTableInput,
  source: { name: string; parameters: Record<string, unknown> },
  context: TaskContext,
): Promise<OpenedSource> {
  const stores = storesOf(input);
  const workflow = await stores.cluster.get<Workflow>(workflowKind, source.name, input.namespace);
  if (!workflow) throw new RunError('SourceNotFound', `Workflow ${source.name} not found.`);
  const sourceVersion = workflowSourceVersion(workflow, input.resources as KubeObject[]);
  if (!sourceVersion)
    throw new RunError('SourceNotFound', `Workflow ${source.name} loads no dataset that serves a version.`);
  const value = await runProcessGraph(workflowCallGraph(workflow, source.parameters), {
    services: { collections: datasetCollections(stores), features: storedFeatureCollections(stores) },
    userProcesses: storedWorkflows(stores.cluster, input.namespace),
    signal: context.signal,
  }).catch(sourceFailure(`workflow ${source.name}`));
  const dims = isCube(value) ? value.dimensions : [];
  const [time, bands, y, x] = dims;
  if (
    !isCube(value) ||
    dims.length !== 4 ||
    time?.type !== 'temporal' ||
    bands?.type !== 'bands' ||
    bands.labels.length !== 1 ||
    y?.type !== 'spatial' ||
    x?.type !== 'spatial'
  )
    throw new RunError(
      'InvalidParameters',
      `Workflow ${source.name} must return a raster cube of one band over time (t, bands, y, x); it returned ${
        isCube(value) ? `a cube of dimensions ${dims.map((d) => `${d.name} (${d.type})`).join(', ')}` : 'no data cube'
      }.`,
    );
  return { cube: value, sourceVersion, label: `workflow ${source.name}` };
}

async function build(input: AnalyticsTableInput, context: TaskContext): Promise<AnalyticsTableVersion> {
  const { spec, namespace, storageRoot: root, previous } = input;
  const cluster = pinnedResources(input.resources as KubeObject[]);
  const collection = await cluster.get<FeatureCollection>(featureCollectionKind, spec.featureCollection, namespace);
  const featureCollectionPath = collection?.status?.path;
  if (!featureCollectionPath)
    throw new RunError('SourceNotFound', `Feature collection ${spec.featureCollection} has nothing served.`);
  const { workflow } = spec.source;
  const { cube, sourceVersion, dataset, label } = workflow
    ? await openWorkflowSource(input, workflow, context)
    : await openDatasetSource(input, spec.source.dataset!);
  const stored = await storedFeatureCollections({ cluster, namespace, storageRoot: root }).get(spec.featureCollection);
  if (!stored) throw new RunError('SourceNotFound', `Feature collection ${spec.featureCollection} has no stored file.`);
  const grid = gridOf(cube);
  const { orgUnits } = await orgUnitCoverage(root, featureCollectionPath, stored.features, stored.crs, grid);
  // The controller hands over the previous version only when it was computed with the same spec; a version from
  // before tables were partitioned by year is not extended.
  const extends_ =
    previous?.featureCollectionPath === featureCollectionPath && isPartitioned(previous.path) ? previous : undefined;
  const changed =
    extends_ && dataset && changedDays(dataset, { sourceVersion: extends_.sourceVersion, end: extends_.periods?.end });
  const open = changed && extends_ ? await readOpenPeriods(storeFile(root, extends_.path)) : undefined;
  const result = await buildAnalytics({
    cube,
    sourceVersion,
    orgUnits,
    periodTypes: spec.periodTypes,
    statistics: spec.statistics,
    ...(spec.weighting === 'population' && { cellWeights: await populationWeights(input, grid, label) }),
    ...(changed && { changed }),
    ...(open && { open }),
    signal: context.signal,
    progress: (done, total) => context.progress(done, total, 'aggregating time chunks'),
  }).catch(sourceFailure(label));
  const id = newVersionId(new Date(), input.attempt);
  const path = analyticsTablePath(input.table, id);
  const published = await publishAnalyticsBuild(
    result,
    { staging: analyticsTableStaging(root, input.table, id), target: storeFile(root, path) },
    changed && extends_ ? { dir: storeFile(root, extends_.path), rows: extends_.rows } : undefined,
    context.signal,
  );
  await removeUnkeptVersions(root, input.table, new Set([...input.keep, id]));
  return {
    id,
    path,
    sourceVersion,
    featureCollectionPath,
    generation: input.generation,
    rows: published.rows,
    ...(result.days && { periods: result.days }),
    computedPeriods: result.periods.size,
    cellsRead: result.cellsRead,
    publishedAt: new Date().toISOString(),
  };
}

export const analyticsTable: Task = async (raw, context) => {
  const parsed = analyticsTableInputSchema.safeParse(raw);
  if (!parsed.success) throw new RunError('InvalidInput', `invalid analytics-table input: ${parsed.error.message}`);
  return build(parsed.data, context);
};

/** The `remove-analytics-table` task: a deleted table's versions go with their directory. */
export const removeAnalyticsTable: Task = async (raw) => {
  const parsed = removeTableInputSchema.safeParse(raw);
  if (!parsed.success)
    throw new RunError('InvalidInput', `invalid remove-analytics-table input: ${parsed.error.message}`);
  await removeTree(analyticsTableDir(parsed.data.storageRoot, parsed.data.table));
  return null;
};
