import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../errors.ts';
import type { ImmutableFileCache } from './file-cache.ts';

type ByteRange = { start: number; end: number };

/**
 * The single byte range of a `Range` header (RFC 9110 §14), or undefined to send the whole file (no header,
 * another unit, or several ranges, which a server may ignore). Throws 416 when no byte of the file is asked.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) throw new HttpError('RangeNotSatisfiable', `range ${header} asks for no bytes`);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return undefined;
  }
  if (start >= size) throw new HttpError('RangeNotSatisfiable', `range ${header} starts past the end (${size} bytes)`);
  return { start, end };
}

function notModified(request: FastifyRequest, etag: string, mtime: Date): boolean {
  const match = request.headers['if-none-match'];
  if (match !== undefined) return match.split(',').some((t) => t.trim() === etag || t.trim() === '*');
  const since = request.headers['if-modified-since'];
  return since !== undefined && Math.floor(mtime.getTime() / 1000) <= Math.floor(Date.parse(since) / 1000);
}

/** One representation to send: its validators, and its bytes in memory or as a stream of a byte range. */
export interface Entity {
  size: number;
  mtime: Date;
  etag: string;
  contentType: string;
  bytes?: Uint8Array;
  /** Bytes `start` to `end` inclusive, for entities not held in memory. */
  stream?: (start: number, end: number) => NodeJS.ReadableStream;
}

/**
 * Answers GET or HEAD with validators (ETag, Last-Modified), conditional requests (304) and single byte ranges
 * (206, 416). The caller guarantees that an ETag names immutable content.
 */
export async function sendEntity(request: FastifyRequest, reply: FastifyReply, entity: Entity): Promise<void> {
  const { etag, mtime, size } = entity;
  reply
    .header('etag', etag)
    .header('last-modified', mtime.toUTCString())
    .header('accept-ranges', 'bytes')
    .header('cache-control', 'public, max-age=0, must-revalidate')
    .type(entity.contentType);
  if (notModified(request, etag, mtime)) {
    await reply.code(304).send();
    return;
  }
  const ifRange = request.headers['if-range'];
  let range: ByteRange | undefined;
  try {
    range = ifRange === undefined || ifRange === etag ? parseRange(request.headers.range, size) : undefined;
  } catch (err) {
    reply.header('content-range', `bytes */${size}`);
    throw err;
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? size - 1;
  const length = size === 0 ? 0 : end - start + 1;
  if (range) reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
  reply.header('content-length', length);
  if (request.method === 'HEAD' || length === 0) {
    await reply.send();
  } else if (entity.bytes) {
    await reply.send(range ? entity.bytes.subarray(start, end + 1) : entity.bytes);
  } else {
    await reply.send(entity.stream!(start, end));
  }
}

export interface FileResponseOptions {
  contentType: string;
  /**
   * Where metadata and small files come from, for paths that are immutable once they exist (a version's file, a
   * version's thumbnail). Without it the file is read from disk on every request.
   */
  cache?: ImmutableFileCache;
  /** Identifies the content the path holds now (e.g. the store version), part of the ETag. */
  etagPrefix: string;
}

/**
 * Answers GET or HEAD for one file of a store (see `sendEntity`). Returns false when the path is no regular
 * file, so the caller answers 404.
 */
export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  options: FileResponseOptions,
): Promise<boolean> {
  const info = options.cache
    ? await options.cache.get(path)
    : await stat(path).then(
        (s) => (s.isFile() ? { size: s.size, mtime: s.mtime, bytes: undefined } : undefined),
        () => undefined,
      );
  if (!info) return false;
  await sendEntity(request, reply, {
    size: info.size,
    mtime: info.mtime,
    etag: `"${options.etagPrefix}-${info.size.toString(36)}-${info.mtime.getTime().toString(36)}"`,
    contentType: options.contentType,
    bytes: info.bytes,
    stream: (start, end) => createReadStream(path, { start, end }),
  });
  return true;
}

export interface DirectoryEntry {
  name: string;
  type: 'file' | 'directory';
  /** Bytes, for files. */
  size?: number;
}

/**
 * The files and directories in `path`, by name, leaving out names `hidden` rejects; undefined when `path` is no
 * directory.
 */
export async function listDirectory(
  path: string,
  hidden: (name: string) => boolean = () => false,
): Promise<DirectoryEntry[] | undefined> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => undefined);
  if (!entries) return undefined;
  return Promise.all(
    entries
      .filter((e) => (e.isFile() || e.isDirectory()) && !hidden(e.name))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map(async (e) =>
        e.isFile()
          ? { name: e.name, type: 'file' as const, size: (await stat(join(path, e.name))).size }
          : { name: e.name, type: 'directory' as const },
      ),
  );
}
