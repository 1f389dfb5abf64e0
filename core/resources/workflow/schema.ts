import { z } from 'zod';
import { freeForm, statusBase } from '../common.ts';
import { defineKind } from '../kind.ts';
import { processParametersSchema, processReturnValueSchema } from './process-metadata.ts';

export const workflowSpecSchema = z
  .object({
    id: z
      .string()
      .regex(/^\w+$/, { message: 'must be letters, digits and underscores, like openEO process ids' })
      .describe('openEO process id.'),
    summary: z.string().optional().describe('Short summary.'),
    description: z.string().optional().describe('Description (CommonMark).'),
    parameters: processParametersSchema.optional(),
    returns: processReturnValueSchema.optional(),
    processGraph: freeForm('The process graph.'),
    triggers: z
      .array(
        z.object({
          event: z.enum(['dataset.updated']).describe('The event that runs the process.'),
          dataset: z.string().describe('The Dataset whose event it is.'),
        }),
      )
      .optional()
      .describe(
        'Events that run the process, each as a ProcessingJob named after the event, with the period range as arguments.',
      ),
  })
  .describe('An openEO user-defined process.');

export const workflowStatusSchema = z.object({ ...statusBase }).describe('Observed state of the workflow.');

export const { kind: workflowKind, schema: workflowSchema } = defineKind({
  kind: 'Workflow',
  plural: 'workflows',
  shortNames: ['swf'],
  description: 'A stored workflow: an openEO user-defined process.',
  spec: workflowSpecSchema,
  status: workflowStatusSchema,
  columns: [{ name: 'Process', type: 'string', jsonPath: '.spec.id' }],
});

export type Workflow = z.infer<typeof workflowSchema>;
