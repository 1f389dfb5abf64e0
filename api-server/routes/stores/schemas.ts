import { z } from 'zod';
import { commonErrorResponses, errorDetailSchema } from '../../schemas.ts';

export const storeListingSchema = z
  .object({
    dataset_id: z.string(),
    version: z
      .string()
      .describe('The version (for Icechunk, the snapshot) whose keys are listed; readers are served this version.'),
    path: z.string().describe('The listed directory, relative to the store root.'),
    entries: z.array(
      z.object({
        name: z.string(),
        type: z.enum(['file', 'directory']),
        size: z.number().int().optional().describe('Bytes, for files.'),
      }),
    ),
  })
  .meta({ id: 'StoreListing', description: 'The entries of one directory of a Zarr store.' });

/** What a store route answers: bytes or a directory listing, 404, 416, 422 for a key that could leave the store. */
export const storeResponses = {
  200: z.union([storeListingSchema, z.any()]),
  404: errorDetailSchema,
  416: errorDetailSchema,
  ...commonErrorResponses,
};
