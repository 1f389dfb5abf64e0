import type { z } from 'zod';
import { creationTimestamp } from '../../core/cluster/objects.ts';
import type { Dataset } from '../../core/resources/dataset/schema.ts';
import type { datasetDetailRecordSchema, datasetRecordSchema } from '../schemas.ts';

export type DatasetRecord = z.infer<typeof datasetRecordSchema>;
export type DatasetDetailRecord = z.infer<typeof datasetDetailRecordSchema>;

type Coverage = NonNullable<NonNullable<Dataset['status']>['extent']>;

/** Until a dataset is materialized its extent is the configured one, with no periods covered yet. */
function coverageRecord(coverage: Coverage | undefined, fallback: [number, number, number, number]) {
  const [xmin, ymin, xmax, ymax] = fallback;
  return {
    spatial: coverage?.spatial ?? { xmin, ymin, xmax, ymax },
    spatial_wgs84: coverage?.spatialWgs84 ?? null,
    temporal: coverage?.temporal ?? { start: null, end: null },
  };
}

type DescriptionSpec = Pick<
  Dataset['spec'],
  | 'datasetName'
  | 'shortName'
  | 'description'
  | 'itemType'
  | 'variable'
  | 'periodType'
  | 'units'
  | 'resolution'
  | 'sourceName'
  | 'sourceUrl'
  | 'license'
  | 'licenseUrl'
>;

/** What a dataset or its template says about its values, in the API's snake_case with nulls (spec 1). */
export function descriptionRecord(spec: DescriptionSpec) {
  return {
    dataset_name: spec.datasetName,
    short_name: spec.shortName ?? null,
    description: spec.description ?? null,
    itemType: spec.itemType,
    variable: spec.itemType === 'feature' ? null : (spec.variable ?? null),
    period_type: spec.periodType ?? null,
    units: spec.units ?? null,
    resolution: spec.resolution ?? null,
    source: spec.sourceName ?? null,
    source_url: spec.sourceUrl ?? null,
    license: spec.license ?? 'other',
    license_url: spec.licenseUrl ?? null,
  };
}

/** The DatasetRecord of spec 1 for a Dataset resource: snake_case, nulls where the resource has nothing. */
export function datasetRecord(dataset: Dataset, bbox: [number, number, number, number]): DatasetRecord {
  const { spec, status, metadata } = dataset;
  const id = metadata.name;
  const links = [{ href: `/datasets/${id}`, rel: 'self', title: 'Dataset' }];
  if (spec.format === 'zarr' || spec.format === 'icechunk') {
    links.push({ href: `/zarr/${id}/`, rel: 'zarr', title: 'Zarr store' });
  }
  if (spec.format === 'icechunk')
    links.push({ href: `/icechunk/${id}/`, rel: 'icechunk', title: 'Icechunk repository' });
  if (status?.thumbnail) links.push({ href: `/datasets/${id}/thumbnail.png`, rel: 'preview', title: 'Thumbnail' });
  if (spec.format === 'netcdf')
    links.push({ href: `/datasets/${id}/download`, rel: 'enclosure', title: 'NetCDF file' });
  return {
    dataset_id: id,
    source_dataset_id: spec.source,
    ...descriptionRecord(spec),
    extent: coverageRecord(status?.extent, spec.bbox ? (spec.bbox as [number, number, number, number]) : bbox),
    last_updated: status?.lastUpdated ?? creationTimestamp(dataset),
    links,
    publication: {
      status: status?.publication?.status ?? 'unpublished',
      published_at: status?.publication?.publishedAt ?? null,
    },
  };
}

export function datasetDetailRecord(dataset: Dataset, bbox: [number, number, number, number]): DatasetDetailRecord {
  const versions = [...(dataset.status?.versions ?? [])]
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .map((v) => ({
      created_at: v.createdAt,
      format: v.format,
      coverage: coverageRecord(v.coverage, bbox),
      request_scope: v.requestScope
        ? { start: v.requestScope.start, end: v.requestScope.end, bbox: v.requestScope.bbox ?? null }
        : null,
    }));
  return { ...datasetRecord(dataset, bbox), versions };
}
