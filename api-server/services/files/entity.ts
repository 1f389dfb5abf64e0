import { createReadStream } from 'node:fs';
import { HttpError } from '../../errors.ts';

/**
 * Answers to GET and HEAD of immutable content, independent of the HTTP framework that sends them: the `/zarr`
 * fast path writes them on the bare HTTP server, the routes through fastify (`file-response.ts`).
 */

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

/** What a request says about the representation it wants: method, validators and range. */
export interface EntityRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

function header(request: EntityRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function notModified(request: EntityRequest, etag: string, mtime: Date): boolean {
  const match = header(request, 'if-none-match');
  if (match !== undefined) return match.split(',').some((t) => t.trim() === etag || t.trim() === '*');
  const since = header(request, 'if-modified-since');
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

/** `Last-Modified` of each entity's time, formatted once: a held entity is answered many times. */
const httpDates = new WeakMap<Entity, string>();

function lastModified(entity: Entity): string {
  let date = httpDates.get(entity);
  if (date === undefined) httpDates.set(entity, (date = entity.mtime.toUTCString()));
  return date;
}

/** The answer to a GET or HEAD of an entity, independent of the HTTP framework that sends it. */
export interface EntityResponse {
  status: 200 | 206 | 304;
  headers: Record<string, string | number>;
  body?: Uint8Array | NodeJS.ReadableStream;
}

/**
 * The answer to GET or HEAD with validators (ETag, Last-Modified), conditional requests (304) and single byte
 * ranges (206). Throws 416 when no byte is asked for (sent with a `content-range` naming the size). The
 * caller guarantees that an ETag names immutable content.
 */
export function entityResponse(request: EntityRequest, entity: Entity): EntityResponse {
  const { etag, mtime, size } = entity;
  const headers: EntityResponse['headers'] = {
    etag,
    'last-modified': lastModified(entity),
    'accept-ranges': 'bytes',
    'cache-control': 'public, max-age=0, must-revalidate',
    'content-type': entity.contentType,
  };
  if (notModified(request, etag, mtime)) return { status: 304, headers };
  const ifRange = header(request, 'if-range');
  const range = ifRange === undefined || ifRange === etag ? parseRange(header(request, 'range'), size) : undefined;
  const start = range?.start ?? 0;
  const end = range?.end ?? size - 1;
  const length = size === 0 ? 0 : end - start + 1;
  if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
  headers['content-length'] = length;
  const status = range ? 206 : 200;
  if (request.method === 'HEAD' || length === 0) return { status, headers };
  if (entity.bytes) return { status, headers, body: range ? entity.bytes.subarray(start, end + 1) : entity.bytes };
  return { status, headers, body: entity.stream!(start, end) };
}

/** How a file is served: its media type, and what its ETag starts with. */
export interface EntityDescription {
  contentType: string;
  /** Identifies the content the path holds now (e.g. the store version), part of the ETag. */
  etagPrefix: string;
}

/** The entity of a regular file whose size and time are known (and its bytes, when held in memory). */
export function fileEntity(
  path: string,
  file: { size: number; mtime: Date; bytes?: Uint8Array },
  options: EntityDescription,
): Entity {
  return {
    size: file.size,
    mtime: file.mtime,
    etag: `"${options.etagPrefix}-${file.size.toString(36)}-${file.mtime.getTime().toString(36)}"`,
    contentType: options.contentType,
    bytes: file.bytes,
    stream: (start, end) => createReadStream(path, { start, end }),
  };
}
