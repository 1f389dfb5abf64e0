/**
 * The metadata of a user-defined process (`summary`, `description`, `parameters`, `returns`) checked against
 * openEO's schema (openapi.yaml: `process_graph_with_metadata`, `process_parameter`, `process_return_value`), so
 * that what the engine reads as parameter declarations is one: once when `PUT /process_graphs/{id}` stores a
 * process, and again when a graph calls one, because a Workflow applied by hand never went through the first.
 */
import { z } from 'zod';
import { issuesOf } from '../../resources/registry.ts';
import { ProcessingError } from '../errors.ts';
import type { ParameterDescription, ProcessDescription } from './types.ts';

/** One data type as a JSON Schema (`process_json_schema`). */
const dataType = z.record(z.string(), z.unknown());
/** `process_schema`: one data type, or a non-empty list of them. */
const dataTypes = z.union([dataType, z.array(dataType).min(1)]);

const processParameter = z.looseObject({
  name: z.string().regex(/^\w+$/, 'must match ^\\w+$'),
  description: z.string(),
  schema: dataTypes,
  optional: z.boolean().optional(),
  default: z.unknown().optional(),
  deprecated: z.boolean().optional(),
  experimental: z.boolean().optional(),
});

const processParameters = z.array(processParameter).superRefine((parameters, context) => {
  const seen = new Set<string>();
  parameters.forEach(({ name }, index) => {
    if (seen.has(name))
      context.addIssue({ code: 'custom', path: [index, 'name'], message: `'${name}' is declared twice` });
    seen.add(name);
  });
});

const processReturnValue = z.looseObject({ description: z.string().optional(), schema: dataTypes });

/** openEO lets each member be `null`, which says the same as its absence. */
const metadataSchema = z.object({
  summary: z.string().nullish(),
  description: z.string().nullish(),
  parameters: processParameters.nullish(),
  returns: processReturnValue.nullish(),
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
