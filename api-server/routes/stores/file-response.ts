import { createReadStream } from 'node:fs';
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

export interface FileResponseOptions {
  contentType: string;
  /** Where metadata and small files come from: every path served here is immutable once it exists. */
  cache: ImmutableFileCache;
  /** Identifies the immutable content the path holds now (e.g. the store version), part of the ETag. */
  etagPrefix: string;
}

/**
 * Answers GET or HEAD for one file of a store (an immutable path: a version's file, a version's thumbnail) with
 * validators (ETag, Last-Modified), conditional requests (304) and single
 * byte ranges (206, 416). Returns false when the path is no regular file, so the caller answers 404.
 */
export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  options: FileResponseOptions,
): Promise<boolean> {
  const info = await options.cache.get(path);
  if (!info) return false;
  const etag = `"${options.etagPrefix}-${info.size.toString(36)}-${info.mtime.getTime().toString(36)}"`;
  reply
    .header('etag', etag)
    .header('last-modified', info.mtime.toUTCString())
    .header('accept-ranges', 'bytes')
    .header('cache-control', 'public, max-age=0, must-revalidate')
    .type(options.contentType);
  if (notModified(request, etag, info.mtime)) {
    await reply.code(304).send();
    return true;
  }
  const ifRange = request.headers['if-range'];
  let range: ByteRange | undefined;
  try {
    range = ifRange === undefined || ifRange === etag ? parseRange(request.headers.range, info.size) : undefined;
  } catch (err) {
    reply.header('content-range', `bytes */${info.size}`);
    throw err;
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? info.size - 1;
  const length = info.size === 0 ? 0 : end - start + 1;
  if (range) reply.code(206).header('content-range', `bytes ${start}-${end}/${info.size}`);
  reply.header('content-length', length);
  if (request.method === 'HEAD' || length === 0) {
    await reply.send();
  } else if (info.bytes) {
    await reply.send(range ? info.bytes.subarray(start, end + 1) : info.bytes);
  } else {
    await reply.send(createReadStream(path, { start, end }));
  }
  return true;
}
