import type { z } from 'zod';
import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { coverageRecord } from '../../records/coverage.ts';
import { datasetRecord } from '../../records/dataset.ts';
import type { datasetDetailRecordSchema } from './schemas.ts';

export type DatasetDetailRecord = z.infer<typeof datasetDetailRecordSchema>;

/** The DatasetRecord with the dataset's stored versions, newest first. */
export function datasetDetailRecord(dataset: Dataset, bbox: [number, number, number, number]): DatasetDetailRecord {
  const versions = [...(dataset.status?.versions ?? [])]
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .map((v) => ({
      created_at: v.createdAt,
      format: v.format,
      coverage: coverageRecord(v.coverage),
      request_scope: v.requestScope
        ? { start: v.requestScope.start, end: v.requestScope.end, bbox: v.requestScope.bbox ?? null }
        : null,
    }));
  return { ...datasetRecord(dataset, bbox), versions };
}
