import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import {
  currentVersionOf,
  datasetKind,
  datasetSpecSchema,
  type Dataset,
} from '../../../core/resources/dataset/schema.ts';
import { datasetIdOf } from '../../../core/resources/ingestion/run.ts';
import type { Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/kind.ts';
import type { JobSpec } from '../../jobs/runner.ts';
import type { Action } from '../../runtime/actions.ts';
import { CREDENTIALS_ENV, TOKEN_ENV } from '../../worker/credentials.ts';
import type { IngestionInput } from '../../worker/ingestion-input.ts';
import type { IngestionObserved } from './observed.ts';

/** The pure builders of an attempt: its job's name, the worker's input and environment, the objects it needs. */

export function jobNameFor(run: Ingestion, attempt: number): string {
  return `${run.metadata.name}-a${attempt}`;
}

/** A new Dataset made from its DataSource template, as a run that finds none creates it. */
export function datasetFromSource(
  id: string,
  namespace: string | undefined,
  source: DataSource,
  publish: boolean,
): Dataset {
  const {
    provider: _provider,
    sync: _sync,
    temporalDirection: _direction,
    display: _display,
    ...description
  } = source.spec;
  return {
    apiVersion: API_VERSION,
    kind: datasetKind.kind,
    metadata: { name: id, namespace, labels: { 'climate.stratus.dev/source': source.metadata.name } },
    // Parsed, so that every member the schema defaults (the run history limits) is present as stored.
    spec: datasetSpecSchema.parse({
      ...description,
      source: source.metadata.name,
      format: 'zarr',
      zarrVersion: 2,
      publish,
    }),
  };
}

/** The Dataset to create before a raster attempt, when the run finds none. */
export function ensureDataset(run: Ingestion, source: DataSource, dataset: Dataset | undefined): Action[] {
  if (dataset) return [];
  const object = datasetFromSource(datasetIdOf(run), run.metadata.namespace, source, run.spec.publish);
  return [{ kind: 'apply', ref: datasetKind, object }];
}

/**
 * Secret-backed variables of a job: basic credentials from `credentialsSecret`, a token from `tokenSecret`, both
 * parameters of the provider the attempt uses.
 */
function credentialsEnv(parameters: Record<string, unknown>): JobSpec['env'] {
  const { credentialsSecret, tokenSecret } = parameters;
  const env = [
    ...(typeof credentialsSecret === 'string'
      ? Object.entries(CREDENTIALS_ENV).map(([key, name]) => ({ name, secretKeyRef: { name: credentialsSecret, key } }))
      : []),
    ...(typeof tokenSecret === 'string'
      ? [{ name: TOKEN_ENV, secretKeyRef: { name: tokenSecret, key: 'token' } }]
      : []),
  ];
  return env.length > 0 ? env : undefined;
}

/** The job of an attempt: the run's mode is its task; credentials come from the provider's Secrets. */
export function attemptJob(
  run: Ingestion,
  jobName: string,
  input: { provider: { parameters: Record<string, unknown> } },
  parts?: JobSpec['parts'],
): Omit<JobSpec, 'owner'> {
  return {
    name: jobName,
    task: run.spec.mode,
    input,
    env: credentialsEnv(input.provider.parameters),
    ...(parts && { parts }),
  };
}

/**
 * What the worker of a raster attempt needs, all of it in its input: the dataset's description (the Dataset's,
 * else its template's), the periods to fetch, and with `base` the committed version a sync continues.
 */
export function workerInput(
  run: Ingestion,
  attempt: number,
  source: DataSource,
  observed: Pick<IngestionObserved, 'dataset' | 'instance'>,
  range: { start: string; end: string },
  base: string | undefined,
): IngestionInput {
  const spec = observed.dataset?.spec;
  const baseSnapshot = currentVersionOf(observed.dataset)?.snapshot;
  return {
    run: run.metadata.name,
    attempt,
    datasetId: datasetIdOf(run),
    storageRoot: observed.instance.storageRoot,
    bbox: observed.instance.bbox,
    provider: { name: source.spec.provider.name, parameters: source.spec.provider.parameters ?? {} },
    dataset: {
      name: spec?.datasetName ?? source.spec.datasetName,
      variable: spec?.variable ?? source.spec.variable ?? 'value',
      units: spec?.units ?? source.spec.units,
      periodType: spec?.periodType ?? source.spec.periodType,
      license: spec?.license ?? source.spec.license,
      source: spec?.sourceName ?? source.spec.sourceName,
      sourceUrl: spec?.sourceUrl ?? source.spec.sourceUrl,
      format: spec?.format ?? 'zarr',
      zarrVersion: spec?.zarrVersion ?? 2,
    },
    start: range.start,
    end: range.end,
    overwrite: run.spec.overwrite,
    display: {
      colormap: source.spec.display?.colormap,
      range: source.spec.display?.range as [number, number] | undefined,
      nodata: source.spec.display?.nodata,
    },
    keepThumbnail: observed.dataset?.status?.thumbnail,
    keepVersions: (observed.dataset?.status?.versions ?? []).map((v) => v.id),
    ...(base && { base }),
    ...(base && baseSnapshot && { baseSnapshot }),
  };
}
