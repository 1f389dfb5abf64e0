import { z } from 'zod';
import { featureCollectionRecordSchema } from '../../records/feature-collection.ts';

export const featureCollectionListResponseSchema = z
  .object({ kind: z.string().default('FeatureCollectionList'), items: z.array(featureCollectionRecordSchema) })
  .meta({ id: 'FeatureCollectionListResponse' });
