import { z } from 'zod';

export const dataSourceRecordSchema = z
  .object({
    dataset_id: z.string(),
    dataset_name: z.string(),
    itemType: z.enum(['feature', 'coverage']),
    ingestable: z.boolean().describe('Whether this instance has a provider that can fetch the source.'),
  })
  .catchall(z.unknown())
  .meta({ id: 'DataSourceRecord', description: 'A dataset template: free-form, with itemType and ingestable.' });
