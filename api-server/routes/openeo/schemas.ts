import { z } from 'zod';

export const openeoErrorSchema = z
  .object({ id: z.string(), code: z.string(), message: z.string(), links: z.array(z.unknown()) })
  .meta({ id: 'OpenEOError', description: "Error body of the openEO routes (openEO API's `Error`)." });

/** A free-form JSON document, named in the OpenAPI description. */
export const freeForm = (id: string, description: string) =>
  z.record(z.string(), z.unknown()).meta({ id, description });
