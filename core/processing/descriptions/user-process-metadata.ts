/**
 * The metadata of a user-defined process (`summary`, `description`, `parameters`, `returns`) checked against
 * openEO's schema (openapi.yaml: `process_graph_with_metadata`), so that what the engine reads as parameter
 * declarations is one: once when `PUT /process_graphs/{id}` stores a process, and again when a graph calls one,
 * because a Workflow stored before the check, or applied where nothing validates it, never went through the first.
 */
import { z } from 'zod';
import { issuesOf } from '../../resources/registry.ts';
import { processParametersSchema, processReturnValueSchema } from '../../resources/workflow/process-metadata.ts';
import { ProcessingError } from '../errors.ts';
import type { ParameterDescription, ProcessDescription } from './types.ts';

/** openEO lets each member be `null`, which says the same as its absence. */
const metadataSchema = z.object({
  summary: z.string().nullish(),
  description: z.string().nullish(),
  parameters: processParametersSchema.nullish(),
  returns: processReturnValueSchema.nullish(),
});

export interface UserProcessMetadata {
  summary?: string;
  description?: string;
  parameters?: ParameterDescription[];
  returns?: ProcessDescription['returns'];
}

/**
 * The metadata members of `process` that openEO defines, without the `null` ones. One that does not fit is
 * `ProcessInvalid`, whose message is `context` (which process, where it came from) and the member at fault.
 */
export function userProcessMetadata(process: object, refusal: { context: string; node?: string }): UserProcessMetadata {
  const parsed = metadataSchema.safeParse(process);
  if (!parsed.success) {
    const [first] = issuesOf(parsed.error);
    throw new ProcessingError('ProcessInvalid', `${refusal.context}: ${first!.field}: ${first!.message}`, {
      ...(refusal.node !== undefined && { node: refusal.node }),
    });
  }
  return Object.fromEntries(
    Object.entries(parsed.data).filter(([, value]) => value !== null && value !== undefined),
  ) as UserProcessMetadata;
}
