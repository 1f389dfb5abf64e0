import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import { STORED_CRS } from '../../../core/features/crs.ts';
import { GEOMETRY_COLUMN } from '../../../core/features/geoparquet.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { datasetIdOf } from '../../../core/resources/ingestion/run.ts';
import type { Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/kind.ts';
import type { Action } from '../../runtime/actions.ts';
import { featureRefreshResultSchema, type FeatureRefreshInput } from '../../worker/feature-refresh-input.ts';

/** The parts of a feature refresh run that differ from a raster ingestion; the run's lifecycle is shared. */

/** A new FeatureCollection made from its template, as a refresh that finds none creates it. */
export function featureCollectionFromSource(
  id: string,
  namespace: string | undefined,
  source: DataSource,
  publish: boolean,
  idProperty: string,
): FeatureCollection {
  const { spec } = source;
  return {
    apiVersion: API_VERSION,
    kind: featureCollectionKind.kind,
    metadata: { name: id, namespace, labels: { 'climate.stratus.dev/source': source.metadata.name } },
    spec: {
      name: spec.datasetName,
      ...(spec.description && { description: spec.description }),
      source: source.metadata.name,
      license: spec.license,
      ...(spec.licenseUrl && { licenseUrl: spec.licenseUrl }),
      ...(spec.sourceName && { attribution: spec.sourceName }),
      idProperty,
      publish,
    },
  } as FeatureCollection;
}

/** What to ensure and what to hand the worker for one attempt. */
export function featureRefreshAttempt(
  run: Ingestion,
  attempt: number,
  source: DataSource,
  collection: FeatureCollection | undefined,
  instance: { storageRoot: string; bbox: [number, number, number, number] },
): { ensure: Action[]; input: FeatureRefreshInput } | { error: string } {
  const id = datasetIdOf(run);
  const idProperty = collection?.spec.idProperty ?? source.spec.idProperty;
  if (idProperty === undefined)
    return {
      error: `DataSource ${source.metadata.name} declares no idProperty, and no FeatureCollection ${id} names one.`,
    };
  const created = featureCollectionFromSource(id, run.metadata.namespace, source, run.spec.publish, idProperty);
  const provider = collection?.spec.provider ?? source.spec.provider;
  return {
    ensure: collection ? [] : [{ kind: 'apply', ref: featureCollectionKind, object: created }],
    input: {
      run: run.metadata.name,
      attempt,
      collectionId: id,
      storageRoot: instance.storageRoot,
      bbox: instance.bbox,
      provider: { name: provider.name, parameters: provider.parameters ?? {} },
      idProperty,
      keepFiles: collection?.status?.path ? [collection.status.path] : [],
    },
  };
}

/**
 * The switch a successful attempt makes: one status write of the collection names the new file (readers follow
 * `status.path`), and the run records a `featurecollection.updated` event and the repairs it made.
 */
export function featureRefreshSucceeded(
  run: Ingestion,
  collection: FeatureCollection | undefined,
  jobResult: unknown,
  at: string,
  eventNumber: number,
  instanceBbox: [number, number, number, number],
): { error: string } | { switchStatus: Action; result: Record<string, unknown>; event: Record<string, unknown> } {
  const parsed = featureRefreshResultSchema.safeParse(jobResult);
  if (!parsed.success) return { error: `the worker returned an invalid result: ${parsed.error.message}` };
  const { collectionId, version, report } = parsed.data;
  const [xmin, ymin, xmax, ymax] = version.bbox ?? instanceBbox;
  return {
    switchStatus: {
      kind: 'patchStatusOf',
      ref: featureCollectionKind,
      name: collectionId,
      namespace: run.metadata.namespace,
      // The event's action and previous count describe the collection as read: switch only if it is still so.
      resourceVersion: collection?.metadata.resourceVersion,
      status: {
        featureCount: version.featureCount,
        geometryTypes: version.geometryTypes,
        primaryGeometry: GEOMETRY_COLUMN,
        crs: STORED_CRS,
        extent: { spatial: { xmin, ymin, xmax, ymax }, spatialWgs84: null, temporal: { start: null, end: null } },
        lastUpdated: version.createdAt,
        path: version.path,
        ...(run.spec.publish && { publication: { status: 'published', publishedAt: at } }),
      },
    },
    result: { collectionId, version: version.id, featureCount: version.featureCount, report },
    event: {
      type: 'featurecollection.updated',
      source: `/features/${collectionId}`,
      eventID: `${run.metadata.name}:${eventNumber}`,
      time: at,
      data: {
        collection_id: collectionId,
        version: version.id,
        action: collection?.status?.path ? 'replace' : 'create',
        feature_count: version.featureCount,
        previous_feature_count: collection?.status?.featureCount ?? null,
      },
    },
  };
}
