import { z } from 'zod';
import { linkSchema } from '../../schemas.ts';

export const healthStatusSchema = z
  .object({
    status: z.enum(['healthy', 'degraded', 'unhealthy']).meta({ id: 'Status' }),
    details: z.record(z.string(), z.string()).optional().describe('Why the service is not healthy.'),
  })
  .meta({ id: 'HealthStatus' });

export const appInfoSchema = z
  .object({
    app_version: z.string(),
    python_version: z.string().describe('Kept for client compatibility: the runtime, e.g. "node 24.21.0".'),
    uvicorn_version: z.string().describe('Kept for client compatibility: the HTTP server, e.g. "fastify 5.12.8".'),
    node_version: z.string(),
    server: z.string(),
    read_only: z.boolean().default(false),
  })
  .meta({ id: 'AppInfo' });

export const extentRecordSchema = z
  .object({
    name: z.string().nullable(),
    description: z.string().nullable(),
    bbox: z.array(z.number()).length(4).describe('xmin, ymin, xmax, ymax'),
  })
  .meta({ id: 'ExtentRecord' });

export const rootResponseSchema = z
  .object({
    message: z.string(),
    links: z.array(linkSchema),
    api_version: z.string(),
    backend_version: z.string(),
    stac_version: z.string(),
    type: z.literal('Catalog'),
    id: z.string(),
    title: z.string(),
    description: z.string(),
    endpoints: z.array(z.object({ path: z.string(), methods: z.array(z.string()) })),
    conformsTo: z.array(z.string()),
  })
  .meta({
    id: 'RootResponse',
    description: 'Navigation links, and the openEO capabilities document of this backend.',
  });

export const wellKnownSchema = z
  .object({
    versions: z.array(z.object({ url: z.string(), production: z.boolean(), api_version: z.string() })),
  })
  .meta({ id: 'WellKnownDiscovery' });
