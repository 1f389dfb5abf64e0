import { z } from 'zod';
import { conditionSchema } from './conditions.ts';

/** Building blocks shared by the kinds' schemas, so each fact is described once. */

export const dnsLabel = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, {
    message: 'must be a DNS-1123 label: lower-case letters, digits and "-", starting and ending alphanumeric',
  });

/** A DHIS2 uid: a letter, then 10 letters or digits (DHIS2's `CodeGenerator`). Case matters. */
export const dhis2Uid = z.string().regex(/^[A-Za-z][A-Za-z0-9]{10}$/, {
  message: 'must be a DHIS2 uid: a letter, then 10 letters or digits',
});

/**
 * The options of a refinement of an object that reads the fields at `paths`: it runs beside the failures of the
 * object's other fields, so that one parse reports every failure (zod skips it after any), and is skipped only
 * when a field it reads, or an object holding one, failed to parse. Another refinement's failure (`custom`) leaves
 * the value parsed, so it does not count.
 */
export function refinementReading(...paths: (readonly PropertyKey[])[]): {
  when: (payload: z.core.ParsePayload) => boolean;
} {
  const overlaps = (a: readonly PropertyKey[], b: readonly PropertyKey[]) =>
    a.slice(0, b.length).every((key, i) => key === b[i]);
  return {
    when: (payload) =>
      !payload.issues.some(
        (issue) =>
          issue.code !== 'custom' &&
          paths.some((path) => overlaps(issue.path ?? [], path) || overlaps(path, issue.path ?? [])),
      ),
  };
}

export const metadataSchema = z
  .object({
    name: z.string().describe('Name of the object, unique in its namespace.'),
    namespace: z.string().optional(),
    resourceVersion: z.string().optional().describe('Set by the API server; a write carrying it is compare-and-swap.'),
  })
  .loose()
  .describe('Standard object metadata.');

export const freeForm = (description: string) => z.record(z.string(), z.unknown()).describe(description);

export const secretKeyRef = z
  .object({
    name: dnsLabel.describe('Name of the Secret in the same namespace.'),
    key: z.string().min(1).describe('Key inside the Secret.'),
  })
  .describe('Reference to one key of a Secret.');

export const license = z
  .string()
  .min(1)
  .default('other')
  .describe('SPDX license identifier, or "other" when none exists.');

export const periodType = z
  .enum(['hourly', 'daily', 'weekly', 'monthly', 'yearly'], {
    message: 'must be one of hourly, daily, weekly, monthly, yearly',
  })
  .describe('Native period of the temporal axis.');

export const bbox = z
  .array(z.number())
  .length(4, { message: 'must have exactly 4 numbers: xmin, ymin, xmax, ymax' })
  .describe('Bounding box: xmin, ymin, xmax, ymax (longitude/latitude).');

export const dateTime = z.string().describe('RFC 3339 date-time.');

/** KEP-1623 status members every kind carries. */
export const statusBase = {
  observedGeneration: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('metadata.generation that this status was computed from.'),
  conditions: z.array(conditionSchema).optional().describe('Latest observations of the object, per KEP-1623.'),
};

export const jobErrorSchema = z
  .object({ type: z.string().describe('Error type.'), message: z.string().describe('Error message.') })
  .describe('Why a run failed.');

export const jobEventSchema = z
  .object({
    type: z.string().describe('Event type, e.g. dataset.updated.'),
    source: z.string().describe('API path of the object the event is about.'),
    data: freeForm('Event payload.').optional(),
    eventID: z.string().describe('Unique id, <job>:<n>.'),
    time: dateTime,
  })
  .describe('Something a run did, for subscribers.');

export const progressSchema = z
  .object({
    done: z.number().int().min(0).describe('Units of work done.'),
    total: z.number().int().min(0).describe('Units of work in all.'),
    percent: z.number().min(0).max(100).describe('done / total in percent.'),
    message: z.string().optional().describe('What the run is doing now.'),
  })
  .describe('Progress of the current attempt.');

/**
 * The status members of every run kind (Ingestion, ProcessingJob, Delivery): its current attempt, the Job that
 * runs it, when the next starts, and what the worker reported. Each kind places them among its own members.
 */
export const runStatusFields = {
  attempt: z.number().int().min(0).optional().describe('Current or last attempt, from 1.'),
  jobName: z.string().optional().describe('Name of the job running the current attempt.'),
  retryAfter: dateTime.optional().describe('When the next attempt starts.'),
  startedAt: dateTime.optional(),
  finishedAt: dateTime.optional(),
  progress: progressSchema.optional(),
  error: jobErrorSchema.optional(),
  worker: freeForm(
    'What the worker of a Kubernetes Job last reported: its attempt, progress and end (written by stratus-worker).',
  ).optional(),
};

export const coverageSpatial = z
  .object({ xmin: z.number(), ymin: z.number(), xmax: z.number(), ymax: z.number() })
  .describe('Bounding box in the stored CRS.');

export const coverageSchema = z
  .object({
    spatial: coverageSpatial,
    spatialWgs84: coverageSpatial.nullable().optional().describe('Bounding box in WGS84, when the store is not WGS84.'),
    temporal: z
      .object({
        // Absent or null: no temporal axis. Absent too because a merge patch (RFC 7386) cannot store a null: it
        // deletes the member, and a required member would make the API server refuse the patch.
        start: z.string().nullish().describe('First covered period, in the dataset-native form.'),
        end: z.string().nullish().describe('Last covered period, in the dataset-native form.'),
      })
      .describe('Covered periods; both null for a non-temporal dataset.'),
  })
  .describe('Extent covered by stored data.');

export const publicationSchema = z
  .object({
    status: z.enum(['unpublished', 'published']).describe('Publication status.'),
    publishedAt: dateTime.optional(),
  })
  .describe('Publication state.');

export const artifactVersionSchema = z
  .object({
    value: z
      .string()
      .min(1)
      .max(64)
      .refine((v) => v.trim() === v, { message: 'must not have surrounding whitespace' })
      .describe('Release identifier verbatim as the authority publishes it; opaque.'),
    authority: z
      .string()
      .max(64)
      .regex(/^[a-z0-9]+([._-][a-z0-9]+)*$/, { message: 'must be a machine identifier like "worldpop" or "gadm.org"' })
      .describe('Stable machine identifier of the releasing authority.'),
  })
  .describe('Release identity (authority, value).');

/** What a dataset says about its values: shared by a DataSource (the template) and the Datasets made from it. */
export const datasetDescriptionFields = {
  shortName: z.string().optional().describe('Short display name.'),
  description: z.string().optional().describe('What the values mean, with caveats.'),
  itemType: z.enum(['coverage', 'feature']).default('coverage').describe('coverage (raster) or feature (vector).'),
  variable: z.string().optional().describe('Primary raster variable.'),
  periodType: periodType.optional(),
  units: z.string().optional().describe('Units of the primary variable.'),
  resolution: z.string().optional().describe('Native spatial resolution summary.'),
  sourceName: z.string().optional().describe('Upstream source name.'),
  sourceUrl: z.string().optional().describe('Upstream source URL.'),
  license,
  licenseUrl: z.string().optional().describe('URL of the license text.'),
};
