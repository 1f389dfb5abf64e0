import { stat } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../errors.ts';
import { entityResponse, fileEntity, type Entity, type EntityDescription, type EntityResponse } from './entity.ts';
import type { ImmutableFileCache } from './file-cache.ts';

/** Sends `entityResponse` through fastify. */
export async function sendEntity(request: FastifyRequest, reply: FastifyReply, entity: Entity): Promise<void> {
  let answer: EntityResponse;
  try {
    answer = entityResponse(request, entity);
  } catch (err) {
    reply.header('content-range', `bytes */${entity.size}`);
    throw err;
  }
  const { status, headers, body } = answer;
  await reply.code(status).headers(headers).send(body);
}

export interface FileResponseOptions extends EntityDescription {
  /**
   * Where the entity comes from, for paths that are immutable once they exist (a version's file, a version's
   * thumbnail). Without it the file's size and time are read from disk on every request, and its bytes streamed.
   */
  cache?: ImmutableFileCache;
}

/** The entity of a file that may change, read afresh: undefined when the path is no regular file. */
async function mutableFileEntity(path: string, description: EntityDescription): Promise<Entity | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() ? fileEntity(path, { size: info.size, mtime: info.mtime }, description) : undefined;
}

/**
 * Answers GET or HEAD for one file of a store (see `sendEntity`). Returns false when the path is no regular
 * file, so the caller answers 404.
 */
export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  { cache, ...description }: FileResponseOptions,
): Promise<boolean> {
  const entity = await (cache ? cache.entity(path, description) : mutableFileEntity(path, description));
  if (!entity) return false;
  await sendEntity(request, reply, entity);
  return true;
}

/** Answers GET or HEAD for the file at `path` (see `sendFile`), or 404 with the message `missing` when there is none. */
export async function sendFileOr404(
  request: FastifyRequest,
  reply: FastifyReply,
  path: string | undefined,
  { missing, ...options }: FileResponseOptions & { missing: string },
): Promise<FastifyReply> {
  if (path === undefined || !(await sendFile(request, reply, path, options))) throw new HttpError('NotFound', missing);
  return reply;
}
