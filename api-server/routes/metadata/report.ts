import { z } from 'zod';

/**
 * DHIS2's metadata import report (`ImportReport`): totals, and per type of object its totals and the reports of
 * the objects that failed, each naming its index in the body and the rules it broke.
 */
export const IMPORT_STRATEGIES = ['CREATE', 'UPDATE', 'CREATE_AND_UPDATE', 'DELETE'] as const;
export type ImportStrategy = (typeof IMPORT_STRATEGIES)[number];

/** What an object of the import does, or did. */
export type Outcome = 'created' | 'updated' | 'deleted' | 'ignored';

export interface ImportErrorReport {
  message: string;
  mainKlass: string;
  errorCode: string;
  errorProperty?: string;
  errorProperties: string[];
}

export interface ObjectReport {
  klass: string;
  index: number;
  uid?: string;
  errorReports: ImportErrorReport[];
}

const statsSchema = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  deleted: z.number().int(),
  ignored: z.number().int(),
  total: z.number().int(),
});
export type Stats = z.infer<typeof statsSchema>;

const errorReportSchema = z.object({
  message: z.string(),
  mainKlass: z.string().describe('The class of the object at fault.'),
  errorCode: z.string().describe('DHIS2 error code: E4000 a client rule, E5000, E5001, E4014, E3000 (docs/errors.md).'),
  errorProperty: z.string().optional().describe('The member at fault.'),
  errorProperties: z.array(z.string()).describe('The values the message names.'),
});

const typeReportSchema = z.object({
  klass: z.string(),
  stats: statsSchema,
  objectReports: z
    .array(
      z.object({
        klass: z.string(),
        index: z.number().int().describe('The position of the object in its list of the body, from 0.'),
        uid: z.string().optional(),
        errorReports: z.array(errorReportSchema),
      }),
    )
    .describe('The objects that failed.'),
});

export const importReportMessageSchema = z
  .object({
    httpStatus: z.enum(['OK', 'Conflict']),
    httpStatusCode: z.union([z.literal(200), z.literal(409)]),
    status: z.enum(['OK', 'WARNING', 'ERROR']),
    message: z.string().optional(),
    response: z.object({
      responseType: z.literal('ImportReport'),
      status: z.enum(['OK', 'WARNING', 'ERROR']),
      importParams: z.object({
        importStrategy: z.enum(IMPORT_STRATEGIES),
        atomicMode: z.enum(['ALL', 'NONE']),
        dryRun: z.boolean(),
      }),
      stats: statsSchema,
      typeReports: z.array(typeReportSchema),
    }),
  })
  .meta({ id: 'ImportReportMessage', description: "DHIS2's metadata import report in its WebMessage envelope." });

export type TypeReport = z.infer<typeof typeReportSchema>;

/** One object of the import as judged: what it does, or why it cannot. */
export interface Judged {
  index: number;
  uid?: string;
  outcome: Exclude<Outcome, 'ignored'>;
  errors: ImportErrorReport[];
}

export const emptyStats = (): Stats => ({ created: 0, updated: 0, deleted: 0, ignored: 0, total: 0 });

export function addStats(into: Stats, from: Stats): void {
  for (const key of Object.keys(into) as (keyof Stats)[]) into[key] += from[key];
}

/**
 * The type report of judged objects: with `ignoreAll` (an atomic import that fails) every object is counted
 * ignored, otherwise each failing one.
 */
export function typeReport(klass: string, judged: readonly Judged[], ignoreAll: boolean): TypeReport {
  const stats = emptyStats();
  for (const object of judged) {
    stats.total += 1;
    if (ignoreAll || object.errors.length > 0) stats.ignored += 1;
    else stats[object.outcome] += 1;
  }
  return {
    klass,
    stats,
    objectReports: judged
      .filter((object) => object.errors.length > 0)
      .map((object) => ({
        klass,
        index: object.index,
        ...(object.uid !== undefined && { uid: object.uid }),
        errorReports: object.errors,
      })),
  };
}
