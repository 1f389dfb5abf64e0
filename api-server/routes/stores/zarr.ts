import { stat } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentVersionOf, datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { isSafeKey, resolveKey, storeFile } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import { commonErrorResponses, errorDetailSchema, resourceIdSchema } from '../../schemas.ts';
import { listDirectory, sendEntity, sendFile } from './file-response.ts';

const METADATA_KEYS = new Set(['.zarray', '.zattrs', '.zgroup', '.zmetadata', 'zarr.json']);

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
 * `GET`/`HEAD /zarr/{dataset_id}/{key}`: the current version of a dataset's Zarr store as plain files. The
 * version is looked up per request, so a switch takes effect at once; a key is resolved inside that version's
 * directory only (400 for any key that could escape it).
 */
export const zarrRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace } = app.stratus;
  const storageRoot = app.stratus.storageRoot;

  async function currentVersion(id: string) {
    const dataset = await cluster.get<Dataset>(datasetKind, id, namespace);
    if (!dataset) throw new HttpError('NotFound', `Dataset ${id} not found`);
    if (dataset.spec.format !== 'zarr' && dataset.spec.format !== 'icechunk')
      throw new HttpError('NotFound', `Dataset ${id} is not stored as Zarr`);
    const version = currentVersionOf(dataset);
    if (!version) throw new HttpError('NotFound', `Dataset ${id} has no stored version yet`);
    return { id: version.id, base: storeFile(storageRoot, version.path), snapshot: version.snapshot };
  }

  /** The same key through an Icechunk snapshot: Zarr v3 keys resolved by the repository's store. */
  async function sendSnapshotKey(
    request: FastifyRequest,
    reply: FastifyReply,
    version: { base: string; snapshot: string },
    id: string,
    key: string,
  ) {
    const listing = key === '' || key.endsWith('/');
    const prefix = key.replace(/\/$/, '');
    if (prefix !== '' && !isSafeKey(prefix))
      throw new HttpError('BadRequest', `invalid store key: ${JSON.stringify(key)}`);
    if (!listing) {
      const found = await app.stratus.icechunk.get(version.base, version.snapshot, prefix);
      if (found) {
        const name = key.slice(key.lastIndexOf('/') + 1);
        await sendEntity(request, reply, {
          size: found.bytes.length,
          mtime: found.writtenAt,
          etag: `"${version.snapshot}"`,
          contentType: METADATA_KEYS.has(name) ? 'application/json' : 'application/octet-stream',
          bytes: found.bytes,
        });
        return reply;
      }
    }
    const entries = await app.stratus.icechunk.list(version.base, version.snapshot, prefix);
    if (!entries) throw new HttpError('NotFound', `no key ${key} in the store of dataset ${id}`);
    return { dataset_id: id, version: version.snapshot, path: prefix, entries };
  }

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
      const version = await currentVersion(id);
      if (version.snapshot) return sendSnapshotKey(request, reply, { ...version, snapshot: version.snapshot }, id, key);
      const listing = key === '' || key.endsWith('/');
      const path = resolveKey(version.base, listing ? key.replace(/\/$/, '') : key);
      if (path === undefined) throw new HttpError('BadRequest', `invalid store key: ${JSON.stringify(key)}`);
      if (!listing) {
        const name = key.slice(key.lastIndexOf('/') + 1);
        const sent = await sendFile(request, reply, path, {
          contentType: METADATA_KEYS.has(name) ? 'application/json' : 'application/octet-stream',
          etagPrefix: version.id,
          cache: app.stratus.files,
        });
        if (sent) return reply;
        if (!(await stat(path).catch(() => undefined))?.isDirectory())
          throw new HttpError('NotFound', `no key ${key} in the store of dataset ${id}`);
      }
      const listed = await listDirectory(path);
      if (!listed) throw new HttpError('NotFound', `no directory ${key} in the store of dataset ${id}`);
      return { dataset_id: id, version: version.id, path: key.replace(/\/$/, ''), entries: listed };
    },
  });
};
