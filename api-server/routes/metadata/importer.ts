import type { z } from 'zod';
import { dhis2Uid } from '../../../core/resources/common.ts';
import type { ErrorReport } from '../../errors.ts';
import type { ImportErrorReport, ImportStrategy, Judged } from './report.ts';

/**
 * One type of object of the metadata import. `judge` decides what each object of the body would do against the
 * store as it is, without writing; `apply` writes the objects judged good and reports those that failed on the way
 * (a concurrent change). The route runs the two phases, so that an atomic import writes nothing when any object
 * of any type fails, and a dry run only judges.
 */
export interface Importer {
  /** The body's member holding the objects. */
  collection: string;
  /** DHIS2's class of the objects. */
  klass: string;
  judge(objects: readonly unknown[], strategy: ImportStrategy): Promise<Judged[]>;
  apply(judged: readonly Judged[]): Promise<Judged[]>;
}

/** A catalogue error report as the import report carries it. */
export const importErrorReport = (klass: string, report: ErrorReport): ImportErrorReport => ({
  message: report.message,
  mainKlass: klass,
  errorCode: report.errorCode,
  ...(report.errorProperty !== undefined && { errorProperty: report.errorProperty }),
  errorProperties: report.errorProperty !== undefined ? [report.errorProperty] : [],
});

/**
 * What the strategy makes of an object found (or not) by its uid: DHIS2's E5000 for a creation of an object that
 * exists, E5001 for an update or deletion of one that does not.
 */
export function outcomeOf(
  strategy: ImportStrategy,
  found: boolean,
  uid: string | undefined,
  klass: string,
): Judged['outcome'] | ImportErrorReport {
  if (found) {
    if (strategy === 'CREATE')
      return importErrorReport(klass, {
        message: `An object with the uid '${uid}' exists already, and the import strategy is CREATE.`,
        errorCode: 'E5000',
        errorProperty: 'id',
      });
    return strategy === 'DELETE' ? 'deleted' : 'updated';
  }
  if (strategy === 'CREATE' || strategy === 'CREATE_AND_UPDATE') return 'created';
  return importErrorReport(klass, {
    message:
      uid === undefined
        ? `The object has no id, which the import strategy ${strategy} needs to find it.`
        : `No object has the uid '${uid}', and the import strategy is ${strategy}.`,
    errorCode: 'E5001',
    errorProperty: 'id',
  });
}

/**
 * The uid of an object of the body (its `id`), or the E4014 report of an id that `uidSchema` refuses; undefined for
 * an object without one.
 */
export function uidOfObject(
  object: unknown,
  klass: string,
  uidSchema: z.ZodType<string> = dhis2Uid,
): { uid?: string; error?: ImportErrorReport } {
  const id = typeof object === 'object' && object !== null ? (object as { id?: unknown }).id : undefined;
  if (id === undefined) return {};
  const parsed = uidSchema.safeParse(id);
  if (parsed.success) return { uid: parsed.data };
  return {
    error: importErrorReport(klass, {
      message: `The id ${JSON.stringify(id)?.slice(0, 100)} is no uid: it ${parsed.error.issues[0]?.message ?? 'is malformed'}.`,
      errorCode: 'E4014',
      errorProperty: 'id',
    }),
  };
}
