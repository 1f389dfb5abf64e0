import type { FastifyReply } from 'fastify';
import fastJson from 'fast-json-stringify';
import { z } from 'zod';

const jsonSchemaOf = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Parameters<typeof fastJson>[0];

/**
 * A route's serializer compiled from its zod response schemas with fast-json-stringify (fastify's own default),
 * for the hot list routes: the zod type provider's serializer checks every response against the schema and then
 * calls `JSON.stringify`, which on a page of a hundred records costs more than the rest of the request
 * (measured in the history of docs/performance.md). Compiled, the response is written member by member as the
 * schema declares, and members it does not declare are left out; the handlers' types keep the responses to the schema.
 */
export function compiledSerializer<Schema>({ schema }: { schema: Schema }): (data: unknown) => string {
  // fastify hands a route's serializer compiler each response schema of the route, the zod schemas it declares.
  return fastJson(jsonSchemaOf(schema as z.ZodType));
}

/**
 * The JSON of an item of a list as UTF-8 bytes, serialized by the compiled serializer of its record's schema once
 * per object: the informer caches replace an object on every change and never change one, so the bytes of an
 * object stay right for as long as it is listed. A list then costs a copy of bytes, whatever its length.
 */
export function itemJson<T extends object, R>(schema: z.ZodType<R>, record: (item: T) => R): (item: T) => Buffer {
  const stringify = fastJson(jsonSchemaOf(schema));
  const texts = new WeakMap<T, Buffer>();
  return (item) => {
    let text = texts.get(item);
    if (text === undefined) texts.set(item, (text = Buffer.from(stringify(record(item)))));
    return text;
  };
}

const COMMA = Buffer.from(',');

/**
 * The bytes of a JSON object whose member `member` is the array of `items` (each item's JSON, see `itemJson`), after
 * the members of `head` and before those of `tail`; fastify sends bytes without serializing them.
 */
export function jsonListBytes(
  head: Record<string, unknown>,
  member: string,
  items: Buffer[],
  tail: Record<string, unknown>,
): Buffer {
  const open = JSON.stringify(head).slice(0, -1);
  const close = JSON.stringify(tail).slice(1);
  const parts: Buffer[] = [Buffer.from(`${open}${open.length > 1 ? ',' : ''}${JSON.stringify(member)}:[`)];
  items.forEach((item, i) => parts.push(...(i === 0 ? [item] : [COMMA, item])));
  parts.push(Buffer.from(`]${close.length > 1 ? ',' : ''}${close}`));
  return Buffer.concat(parts);
}

/** Sends JSON bytes (`jsonListBytes`) as fastify would send the serialized object. */
export const sendJson = (reply: FastifyReply, bytes: Buffer): FastifyReply =>
  reply.type('application/json; charset=utf-8').send(bytes);
