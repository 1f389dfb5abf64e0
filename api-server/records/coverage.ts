import { z } from 'zod';
import type { coverageSchema } from '../../core/resources/common.ts';

const coverageSpatialSchema = z
  .object({ xmin: z.number(), ymin: z.number(), xmax: z.number(), ymax: z.number() })
  .meta({ id: 'CoverageSpatial' });

export const artifactCoverageSchema = z
  .object({
    spatial: coverageSpatialSchema,
    spatial_wgs84: coverageSpatialSchema.nullable(),
    temporal: z.object({ start: z.string().nullable(), end: z.string().nullable() }).meta({ id: 'CoverageTemporal' }),
  })
  .meta({ id: 'ArtifactCoverage' });

type Coverage = z.infer<typeof coverageSchema>;

/** Until a resource is materialized its extent is the configured one, with no periods covered yet. */
export function configuredCoverage([xmin, ymin, xmax, ymax]: [number, number, number, number]): Coverage {
  return { spatial: { xmin, ymin, xmax, ymax }, temporal: { start: null, end: null } };
}

/**
 * The ArtifactCoverage of spec 1: snake_case, nulls where the status has nothing. A status is written by merge
 * patch, where null deletes a member: absent members read as null.
 */
export function coverageRecord(coverage: Coverage): z.infer<typeof artifactCoverageSchema> {
  return {
    spatial: coverage.spatial,
    spatial_wgs84: coverage.spatialWgs84 ?? null,
    temporal: { start: coverage.temporal?.start ?? null, end: coverage.temporal?.end ?? null },
  };
}
