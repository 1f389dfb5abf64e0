/**
 * openEO's schema of a user-defined process's metadata (openapi.yaml: `process_parameter`, `process_return_value`),
 * the one source for the Workflow resource's `parameters` and `returns` and for the engine's check of a process it
 * is about to call (core/processing/descriptions/user-process-metadata.ts).
 */
import { z } from 'zod';

/** One data type as a JSON Schema (`process_json_schema`). */
const dataType = z.record(z.string(), z.unknown());
/** `process_schema`: one data type, or a non-empty list of them. */
const dataTypes = z
  .union([dataType, z.array(dataType).min(1)])
  .describe('JSON Schema of the value: one object, or a non-empty list of them (one per data type).');

export const processParameterSchema = z
  .looseObject({
    name: z.string().regex(/^\w+$/, 'must match ^\\w+$').describe('Parameter name, unique in the process.'),
    description: z.string().describe('Description (CommonMark).'),
    schema: dataTypes,
    optional: z.boolean().optional().describe('Whether the parameter may be left out.'),
    default: z.unknown().optional().describe('The value of an optional parameter left out.'),
    deprecated: z.boolean().optional().describe('Whether the parameter is deprecated.'),
    experimental: z.boolean().optional().describe('Whether the parameter is experimental.'),
  })
  .describe('A parameter, as openEO describes one.');

export const processParametersSchema = z
  .array(processParameterSchema)
  .superRefine((parameters, context) => {
    const seen = new Set<string>();
    parameters.forEach(({ name }, index) => {
      if (seen.has(name))
        context.addIssue({ code: 'custom', path: [index, 'name'], message: `'${name}' is declared twice` });
      seen.add(name);
    });
  })
  .describe('Parameters of the process.');

export const processReturnValueSchema = z
  .looseObject({ description: z.string().optional().describe('Description (CommonMark).'), schema: dataTypes })
  .describe('Return value description.');
