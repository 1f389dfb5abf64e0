import { isApiError } from '../../../core/cluster/errors.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import type { ResourceKind } from '../../../core/resources/kind.ts';
import { findByUid, type TrackerMetadata } from '../../../core/tracker/metadata.ts';
import { importErrorReport, outcomeOf, uidOfObject, type Importer } from './importer.ts';
import type { Judged } from './report.ts';

interface JudgedSwitch extends Judged {
  name?: string;
  enableChangeLog?: boolean;
}

/**
 * The import of the tracker changelog switches (`programs`, `trackedEntityTypes`; docs/changelog.md): an object
 * found by its `id` gets the `enableChangeLog` it carries (absent: unchanged). Stratus keeps these objects only as
 * its tracker targets declare them (their resources, applied by GitOps), so the import neither creates nor
 * deletes one: DHIS2's E3000 for that, E5001 for an update of one that does not exist.
 */
export function changeLogSwitchImporter(
  cluster: Cluster,
  namespace: string,
  area: { collection: string; kind: ResourceKind; klass: string },
): Importer {
  const { klass } = area;
  const notAllowed = (what: string) =>
    importErrorReport(klass, {
      message: `The import cannot ${what} ${area.collection}: they are declared by applying their resources; it switches their changelog only.`,
      errorCode: 'E3000',
      errorProperty: 'id',
    });
  return {
    collection: area.collection,
    klass,

    async judge(objects, strategy) {
      const judged: JudgedSwitch[] = [];
      for (const [index, object] of objects.entries()) {
        const { uid, error } = uidOfObject(object, klass);
        const found =
          uid === undefined ? undefined : await findByUid<TrackerMetadata>(cluster, area.kind, namespace, uid);
        const outcome = error ?? outcomeOf(strategy, found !== undefined, uid, klass);
        const base = { index, ...(uid !== undefined && { uid }) };
        if (typeof outcome !== 'string') judged.push({ ...base, outcome: 'updated', errors: [outcome] });
        else if (outcome !== 'updated')
          judged.push({ ...base, outcome, errors: [notAllowed(outcome === 'created' ? 'create' : 'delete')] });
        else {
          const value = (object as { enableChangeLog?: unknown }).enableChangeLog;
          const errors =
            value === undefined || typeof value === 'boolean'
              ? []
              : [
                  importErrorReport(klass, {
                    message: 'enableChangeLog must be a boolean.',
                    errorCode: 'E4000',
                    errorProperty: 'enableChangeLog',
                  }),
                ];
          judged.push({
            ...base,
            outcome,
            errors,
            name: found!.metadata.name,
            ...(typeof value === 'boolean' && { enableChangeLog: value }),
          });
        }
      }
      return judged;
    },

    async apply(judged) {
      const applied: Judged[] = [];
      for (const object of judged as JudgedSwitch[]) {
        if (object.errors.length > 0 || object.enableChangeLog === undefined) {
          applied.push(object);
          continue;
        }
        try {
          // A merge patch sets the switch whatever it was: no compare-and-swap is needed for it.
          await cluster.patch(
            area.kind,
            object.name!,
            { type: 'merge', body: { spec: { enableChangeLog: object.enableChangeLog } } },
            namespace,
            { fieldManager: 'stratus-api-server' },
          );
          applied.push(object);
        } catch (err) {
          if (!isApiError(err, 'NotFound')) throw err;
          applied.push({
            ...object,
            errors: [
              importErrorReport(klass, {
                message: 'The object was deleted while the import ran.',
                errorCode: 'E5001',
                errorProperty: 'id',
              }),
            ],
          });
        }
      }
      return applied;
    },
  };
}
