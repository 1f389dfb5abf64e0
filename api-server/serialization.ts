import fastJson from 'fast-json-stringify';
import { z } from 'zod';

/**
 * A route's serializer compiled from its zod response schemas with fast-json-stringify (fastify's own default),
 * for the hot list routes: the zod type provider's serializer checks every response against the schema and then
 * calls `JSON.stringify`, which on a page of a hundred records costs more than the rest of the request
 * (docs/performance.md). Compiled, the response is written member by member as the schema declares, and members it
 * does not declare are left out; the handlers' types keep the responses to the schema.
 */
export function compiledSerializer<Schema>({ schema }: { schema: Schema }): (data: unknown) => string {
  // fastify hands a route's serializer compiler each response schema of the route, the zod schemas it declares.
  const json = z.toJSONSchema(schema as z.ZodType, { target: 'draft-7', io: 'output', unrepresentable: 'any' });
  return fastJson(json as Parameters<typeof fastJson>[0]);
}
