import { z } from 'zod';
import { pageLinksSchema } from '../../pagination.ts';
import { featureCollectionRecordSchema } from '../../records/feature-collection.ts';

export const featureCollectionListResponseSchema = z
  .object({
    kind: z.string().default('FeatureCollectionList'),
    items: z.array(featureCollectionRecordSchema),
    links: pageLinksSchema,
  })
  .meta({ id: 'FeatureCollectionListResponse' });
