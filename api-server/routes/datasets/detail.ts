import type { z } from 'zod';
import type { Dataset, DatasetVersion } from '../../../core/resources/dataset/schema.ts';
import { coverageRecord } from '../../records/coverage.ts';
import { datasetRecord, readerLinks } from '../../records/dataset.ts';
import type { datasetDetailRecordSchema, datasetVersionRecordSchema } from './schemas.ts';

export type DatasetDetailRecord = z.infer<typeof datasetDetailRecordSchema>;
export type DatasetVersionRecord = z.infer<typeof datasetVersionRecordSchema>;

/**
 * The DatasetRecord with the dataset's retained versions, newest first, each with the links that read it by name
 * (`<id>@<version>`), which keep answering with its bytes while it is retained.
 */
export function datasetDetailRecord(dataset: Dataset, bbox: [number, number, number, number]): DatasetDetailRecord {
  const versions = [...(dataset.status?.versions ?? [])]
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .map((v) => datasetVersionRecord(dataset, v));
  return { ...datasetRecord(dataset, bbox), versions };
}

/** One retained version as `/datasets/{id}` lists it, with the links that read it by name. */
export function datasetVersionRecord(dataset: Dataset, v: DatasetVersion): DatasetVersionRecord {
  const id = dataset.metadata.name;
  return {
    id: v.id,
    current: v.id === dataset.status?.currentVersion,
    snapshot: v.snapshot ?? null,
    created_at: v.createdAt,
    superseded_at: v.supersededAt ?? null,
    removal_requested: dataset.spec.removeVersions?.includes(v.id) ?? false,
    format: v.format,
    coverage: coverageRecord(v.coverage),
    request_scope: v.requestScope
      ? { start: v.requestScope.start, end: v.requestScope.end, bbox: v.requestScope.bbox ?? null }
      : null,
    // Thumbnails are rendered per version; a failed render leaves none, which the link then answers with 404.
    links: readerLinks(`${id}@${v.id}`, v.format, v.format !== 'geoparquet'),
  };
}
