import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { resolveKey } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import { datasetRefSchema } from '../../schemas.ts';
import { listDirectory } from '../../services/files/directory.ts';
import { sendEntity } from '../../services/files/file-response.ts';
import { checkedStoreKey } from '../../services/files/store-key.ts';
import { datasetRef } from '../../services/resources/served-version.ts';
import { ZARR_ROUTE } from '../../services/zarr/zarr-fast-path.ts';
import { storeResponses } from './schemas.ts';

/**
 * `GET`/`HEAD /zarr/{dataset_id}/{key}`: the current version of a dataset's Zarr store (`{dataset_id}@{version}`
 * a retained one), as plain files or through an Icechunk snapshot (`ZarrKeys`). A key is resolved inside that version only (422 for any key that could
 * escape it); a directory is listed as JSON. Existing keys are mostly answered before this route, by the fast path.
 */
export const zarrRoutes: FastifyPluginAsyncZod = async (app) => {
  const keys = app.zarrKeys;
  app.route({
    method: ['GET', 'HEAD'],
    url: ZARR_ROUTE,
    schema: {
      summary: 'Zarr store content of a managed dataset',
      description:
        "Files of the current version of the dataset's Zarr store (consolidated metadata at `.zmetadata`), with " +
        'ETag, Last-Modified and single byte ranges. A path ending in `/` lists the directory as JSON. For an ' +
        "Icechunk dataset the keys are the Zarr v3 keys of the current version's snapshot. `/zarr/{dataset_id}@{version}/` " +
        'serves a retained version instead (its id, or for an Icechunk dataset its snapshot id, as ' +
        '`/datasets/{dataset_id}` lists them), with the bytes it was served with; 404 names a version not retained. ' +
        'A key that could leave the store (an empty, `.` or `..` segment, or a backslash) is 422.',
      tags: ['Datasets'],
      params: z.object({ dataset_id: datasetRefSchema, '*': z.string().describe('Key inside the store.') }),
      produces: ['application/octet-stream', 'application/json'],
      response: storeResponses,
    },
    handler: async (request, reply) => {
      const { dataset_id: ref, '*': key } = request.params;
      const prefix = checkedStoreKey(key);
      const { id } = datasetRef(ref);
      const version = await keys.version(datasetRef(ref));
      const listing = key === '' || key.endsWith('/');
      if (!listing) {
        const entity = await keys.entity(version, key);
        if (entity) {
          await sendEntity(request, reply, entity);
          return reply;
        }
      }
      // A key that names no file may name a directory, with or without the trailing slash.
      const entries = version.snapshot
        ? await app.icechunkSnapshots.list(version.base, version.snapshot, prefix)
        : await listDirectory(resolveKey(version.base, prefix)!);
      if (!entries) throw new HttpError('NotFound', `no key ${key} in the store of dataset ${id}`);
      return { dataset_id: id, version: version.snapshot ?? version.id, path: prefix, entries };
    },
  });
};
