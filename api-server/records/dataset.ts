import { z } from 'zod';
import { creationTimestamp } from '../../core/cluster/objects.ts';
import type { Dataset } from '../../core/resources/dataset/schema.ts';
import { artifactCoverageSchema, configuredCoverage, coverageRecord } from './coverage.ts';

export const datasetAccessLinkSchema = z
  .object({ href: z.string(), rel: z.string(), title: z.string() })
  .meta({ id: 'DatasetAccessLink' });

/** The DatasetRecord of spec 1, which the dataset, ingestion and sync routes answer. */
export const datasetRecordSchema = z
  .object({
    dataset_id: z.string(),
    source_dataset_id: z.string(),
    dataset_name: z.string(),
    short_name: z.string().nullable(),
    description: z.string().nullable(),
    itemType: z.enum(['feature', 'coverage']),
    variable: z.string().nullable(),
    period_type: z.string().nullable(),
    units: z.string().nullable(),
    resolution: z.string().nullable(),
    source: z.string().nullable(),
    source_url: z.string().nullable(),
    license: z.string(),
    license_url: z.string().nullable(),
    extent: artifactCoverageSchema,
    last_updated: z.string(),
    links: z.array(datasetAccessLinkSchema),
    publication: z
      .object({
        status: z.enum(['unpublished', 'published']).meta({ id: 'PublicationStatus' }),
        published_at: z.string().nullable(),
      })
      .meta({ id: 'DatasetPublication' }),
  })
  .meta({ id: 'DatasetRecord' });

export type DatasetRecord = z.infer<typeof datasetRecordSchema>;

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

export type DatasetAccessLink = z.infer<typeof datasetAccessLinkSchema>;

/**
 * The links that read a dataset's data in `format`, for `ref`: a dataset id (its served version) or
 * `<id>@<version>` (a retained one), the one path form every reader takes.
 */
export function readerLinks(ref: string, format: Dataset['spec']['format'], thumbnail: boolean): DatasetAccessLink[] {
  const links: DatasetAccessLink[] = [];
  if (format === 'zarr' || format === 'icechunk')
    links.push({ href: `/zarr/${ref}/`, rel: 'zarr', title: 'Zarr store' });
  if (format === 'icechunk') links.push({ href: `/icechunk/${ref}/`, rel: 'icechunk', title: 'Icechunk repository' });
  if (thumbnail) links.push({ href: `/datasets/${ref}/thumbnail.png`, rel: 'preview', title: 'Thumbnail' });
  if (format === 'netcdf') links.push({ href: `/datasets/${ref}/download`, rel: 'enclosure', title: 'NetCDF file' });
  return links;
}

/** The DatasetRecord of spec 1 for a Dataset resource: snake_case, nulls where the resource has nothing. */
export function datasetRecord(dataset: Dataset, bbox: [number, number, number, number]): DatasetRecord {
  const { spec, status, metadata } = dataset;
  const id = metadata.name;
  const links = [
    { href: `/datasets/${id}`, rel: 'self', title: 'Dataset' },
    ...readerLinks(id, spec.format, status?.thumbnail !== undefined),
  ];
  return {
    dataset_id: id,
    source_dataset_id: spec.source,
    ...descriptionRecord(spec),
    extent: coverageRecord(
      status?.extent ?? configuredCoverage(spec.bbox ? (spec.bbox as [number, number, number, number]) : bbox),
    ),
    last_updated: status?.lastUpdated ?? creationTimestamp(dataset),
    links,
    publication: {
      status: status?.publication?.status ?? 'unpublished',
      published_at: status?.publication?.publishedAt ?? null,
    },
  };
}
