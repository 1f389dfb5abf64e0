import { stat } from 'node:fs/promises';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isTransientName } from '../../../core/stores/icechunk/file-storage.ts';
import { resolveKey } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import { datasetRefSchema } from '../../schemas.ts';
import { listDirectory } from '../../services/files/directory.ts';
import { sendFile } from '../../services/files/file-response.ts';
import { checkedStoreKey } from '../../services/files/store-key.ts';
import { repositoryDir } from '../../services/icechunk/repositories.ts';
import { datasetRef } from '../../services/resources/served-version.ts';
import { storeResponses } from './schemas.ts';

/**
 * Top-level folders of an Icechunk repository whose objects are named by content ids: a path there never changes
 * once written. Everything else (the `repo` ref file, `config.yaml`) is rewritten in place and never cached.
 */
const IMMUTABLE_FOLDERS = new Set(['chunks', 'manifests', 'snapshots', 'transactions', 'overwritten']);

/** `GET`/`HEAD /icechunk/{dataset_id}/{path}`: the raw objects of a dataset's Icechunk repository. */
export const icechunkRoutes: FastifyPluginAsyncZod = async (app) => {
  app.route({
    method: ['GET', 'HEAD'],
    url: '/icechunk/:dataset_id/*',
    schema: {
      summary: 'Icechunk repository of a managed dataset',
      description:
        "The objects of an Icechunk dataset's repository, for Icechunk clients (for example the JavaScript SDK's " +
        'fetch storage with this URL as its base), with ETag, Last-Modified and single byte ranges. A path ending ' +
        'in `/` lists the directory as JSON; the S3 listing Icechunk clients use is answered at `/?list-type=2`. ' +
        '`/icechunk/{dataset_id}@{version}/` (a version id or snapshot id) serves the same repository once the ' +
        'version is known to be retained (404 naming it otherwise), and its listings name that snapshot: a client ' +
        'opens a read-only session at it. A path that could leave the repository (an empty, `.` or `..` segment, ' +
        'or a backslash) is 422.',
      tags: ['Datasets'],
      params: z.object({ dataset_id: datasetRefSchema, '*': z.string().describe('Object path in the repository.') }),
      produces: ['application/octet-stream', 'application/json'],
      response: storeResponses,
    },
    handler: async (request, reply) => {
      const ref = datasetRef(request.params.dataset_id);
      const { id } = ref;
      const key = request.params['*'];
      const inner = checkedStoreKey(key);
      const { dir, snapshot } = await repositoryDir(app.stratus, ref);
      const listing = key === '' || key.endsWith('/');
      const path = resolveKey(dir, inner)!;
      const name = key.slice(key.lastIndexOf('/') + 1);
      if (isTransientName(name)) throw new HttpError('NotFound', `no object ${key} in the repository of ${id}`);
      if (!listing) {
        const immutable = IMMUTABLE_FOLDERS.has(key.split('/')[0]!) && key.includes('/');
        // A rewritten file gets a new inode (write, then rename), so the inode tells its versions apart.
        const inode = immutable ? 'ic' : `i${(await stat(path).catch(() => undefined))?.ino ?? 0}`;
        const sent = await sendFile(request, reply, path, {
          contentType: name.endsWith('.yaml') ? 'application/yaml' : 'application/octet-stream',
          etagPrefix: inode,
          cache: immutable ? app.files : undefined,
        });
        if (sent) return reply;
        if (!(await stat(path).catch(() => undefined))?.isDirectory())
          throw new HttpError('NotFound', `no object ${key} in the repository of ${id}`);
      }
      const entries = await listDirectory(path, isTransientName);
      if (!entries) throw new HttpError('NotFound', `no directory ${key} in the repository of ${id}`);
      return {
        dataset_id: id,
        version: ref.version !== undefined && snapshot ? snapshot : 'main',
        path: key.replace(/\/$/, ''),
        entries,
      };
    },
  });
};
