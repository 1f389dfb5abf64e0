import { serializerCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';

/**
 * What the app's default serializer (the zod type provider's: the response checked against `schema`, then
 * `JSON.stringify`) writes for the document in `body`. A route with a compiled serializer (`serialization.ts`)
 * must answer these very bytes: equal means the same members, in the same order, written the same way.
 */
export function zodBytes(schema: z.ZodType, body: string): string {
  return serializerCompiler({ schema, method: 'GET', url: '/', httpStatus: '200' })(JSON.parse(body));
}
