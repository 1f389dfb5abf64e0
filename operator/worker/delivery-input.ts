import { z } from 'zod';
import { deliveryTableSourceSchema } from '../../core/resources/delivery/schema.ts';
import { exportSpecSchema } from '../../core/resources/export/schema.ts';

/**
 * What the Delivery controller hands a delivery's attempt: the export's target, mapping and rules as they were
 * when the delivery started, where the payload is, and whether the aggregate changelog is on. The credentials come
 * from the export's Secret through the environment (credentials.ts), never in the input.
 */
export const deliveryInputSchema = z.object({
  delivery: z.string().min(1),
  namespace: z.string().min(1),
  exportId: z.string().min(1),
  /** The batch job whose payload it delivers; or `table`. */
  job: z.string().min(1).optional(),
  /** The analytics table whose values it delivers (`core/exports/table-payload.ts`); or `job`. */
  table: deliveryTableSourceSchema.optional(),
  storageRoot: z.string().min(1),
  /** The payload file, relative to the storage root: the job's dhis2-json result or the table version's Parquet. */
  payload: z.string().min(1),
  dryRun: z.boolean(),
  user: z.string(),
  /** Whether the changelog governing the target is on: `changelog.aggregate`, or the program's switch. */
  changelog: z.boolean(),
  export: exportSpecSchema,
  /** The event program of a tracker target, from its Program resource. */
  program: z.object({ uid: z.string(), programStage: z.string() }).optional(),
});

export type DeliveryInput = z.infer<typeof deliveryInputSchema>;

/**
 * How an attempt that went through the chunks reports (its report is in the checkpoint); a worker that could not
 * reach the end, or whose failed chunks another attempt may still deliver, throws instead.
 */
export const deliveryResultSchema = z.object({
  outcome: z.enum(['successful', 'failed']),
  error: z.object({ type: z.string(), message: z.string() }).optional(),
});

export type DeliveryResult = z.infer<typeof deliveryResultSchema>;
