import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isSafeKey, resolveKey } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import { commonErrorResponses, errorDetailSchema, resourceIdSchema } from '../../schemas.ts';
import { listDirectory, sendEntity } from '../../services/files/file-response.ts';
import type { ZarrKeys } from '../../services/zarr/zarr-keys.ts';

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

/** What a store route answers: bytes or a directory listing, 400 for an unsafe path, 404, 416. */
export const storeResponses = {
  200: z.union([storeListingSchema, z.any()]),
  400: errorDetailSchema,
  404: errorDetailSchema,
  416: errorDetailSchema,
  ...commonErrorResponses,
};

/**
 * `GET`/`HEAD /zarr/{dataset_id}/{key}`: the current version of a dataset's Zarr store, as plain files or through
 * an Icechunk snapshot (`ZarrKeys`). A key is resolved inside that version only (400 for any key that could
 * escape it); a directory is listed as JSON.
 */
export const zarrRoutes: FastifyPluginAsyncZod<{ keys: ZarrKeys }> = async (app, { keys }) => {
  app.route({
    method: ['GET', 'HEAD'],
    url: '/zarr/:dataset_id/*',
    schema: {
      summary: 'Zarr store content of a managed dataset',
      description:
        "Files of the current version of the dataset's Zarr store (consolidated metadata at `.zmetadata`), with " +
        'ETag, Last-Modified and single byte ranges. A path ending in `/` lists the directory as JSON. For an ' +
        "Icechunk dataset the keys are the Zarr v3 keys of the current version's snapshot.",
      tags: ['Datasets'],
      params: z.object({ dataset_id: resourceIdSchema, '*': z.string().describe('Key inside the store.') }),
      produces: ['application/octet-stream', 'application/json'],
      response: storeResponses,
    },
    handler: async (request, reply) => {
      const { dataset_id: id, '*': key } = request.params;
      const version = await keys.currentVersion(id);
      const listing = key === '' || key.endsWith('/');
      if (!listing) {
        const entity = await keys.entity(version, key);
        if (entity) {
          await sendEntity(request, reply, entity);
          return reply;
        }
      }
      // A key that names no file may name a directory, with or without the trailing slash.
      const prefix = key.replace(/\/$/, '');
      if (prefix !== '' && !isSafeKey(prefix))
        throw new HttpError('BadRequest', `invalid store key: ${JSON.stringify(key)}`);
      const entries = version.snapshot
        ? await app.stratus.icechunk.list(version.base, version.snapshot, prefix)
        : await listDirectory(resolveKey(version.base, prefix)!);
      if (!entries) throw new HttpError('NotFound', `no key ${key} in the store of dataset ${id}`);
      return { dataset_id: id, version: version.snapshot ?? version.id, path: prefix, entries };
    },
  });
};
