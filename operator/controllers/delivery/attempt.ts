/**
 * A Delivery's attempts: what a worker is handed (the export as it is now, where the payload is, the
 * credentials' Secret), and why a delivery cannot start at all.
 */
import { PAYLOAD_FILE } from '../../../core/exports/payload.ts';
import type { Delivery } from '../../../core/resources/delivery/schema.ts';
import type { Export } from '../../../core/resources/export/schema.ts';
import { changeLogEnabled } from '../../../core/tracker/metadata.ts';
import type { JobSpec } from '../../jobs/runner.ts';
import type { Action } from '../../runtime/actions.ts';
import { CREDENTIALS_ENV, TOKEN_ENV } from '../../worker/credentials.ts';
import type { DeliveryInput } from '../../worker/delivery-input.ts';
import type { DeliveryObserved } from './observed.ts';

export const deliveryAttemptName = (delivery: Delivery, attempt: number) => `${delivery.metadata.name}-a${attempt}`;
export const deliveryCleanupName = (delivery: Delivery) => `${delivery.metadata.name}-gc`;

/** Credentials from the export's Secret, by the variables the worker reads. */
function credentialsEnv(target: Export['spec']['target']): JobSpec['env'] {
  if (target.tokenSecret) return [{ name: TOKEN_ENV, secretKeyRef: { name: target.tokenSecret, key: 'token' } }];
  if (target.credentialsSecret)
    return Object.entries(CREDENTIALS_ENV).map(([key, name]) => ({
      name,
      secretKeyRef: { name: target.credentialsSecret!, key },
    }));
  return undefined;
}

export function startAttempt(delivery: Delivery, name: string, observed: DeliveryObserved): Action {
  const target = observed.export!;
  const input: DeliveryInput = {
    delivery: delivery.metadata.name,
    namespace: delivery.metadata.namespace ?? 'default',
    exportId: delivery.spec.exportId,
    storageRoot: observed.storageRoot,
    ...(delivery.spec.table
      ? { table: delivery.spec.table, payload: delivery.spec.table.version.path }
      : { job: delivery.spec.jobId!, payload: `${observed.source!.status!.results!.path}/${PAYLOAD_FILE}` }),
    dryRun: delivery.spec.dryRun,
    user: delivery.spec.requestedBy ?? 'anonymous',
    changelog: observed.program ? changeLogEnabled(observed.program) : observed.changelog,
    export: target.spec,
    ...(observed.program && {
      program: { uid: observed.program.spec.uid, programStage: observed.program.spec.programStage! },
    }),
  };
  const env = credentialsEnv(target.spec.target);
  return { kind: 'startJob', job: { name, task: 'delivery', input, ...(env && { env }) } };
}

/**
 * Why the delivery cannot start, if it cannot: its export or its job's payload is gone. A table's version is
 * read by the worker, which fails the delivery when it is gone.
 */
export function unstartable(delivery: Delivery, observed: DeliveryObserved): [string, string] | undefined {
  if (!observed.export) return ['InvalidRequest', `The export ${delivery.spec.exportId} does not exist.`];
  const programName = observed.export.spec.target.program;
  if (programName !== undefined) {
    const program = observed.program;
    if (!program)
      return ['InvalidRequest', `The program ${programName} of export ${delivery.spec.exportId} does not exist.`];
    if (program.spec.trackedEntityType)
      return [
        'InvalidRequest',
        `The program ${programName} enrols tracked entities; exports deliver events to event programs only.`,
      ];
    if (!program.spec.programStage)
      return ['InvalidRequest', `The program ${programName} names no programStage for the events.`];
  }
  if (delivery.spec.table) return undefined;
  const source = observed.source;
  if (!source) return ['InvalidPayload', `The job ${delivery.spec.jobId} does not exist.`];
  if (source.status?.phase !== 'finished' || !source.status.results)
    return [
      'InvalidPayload',
      `The job ${delivery.spec.jobId} has not finished (${source.status?.phase ?? 'created'}).`,
    ];
  if (!source.status.results.files.some((f) => f.name === PAYLOAD_FILE))
    return ['InvalidPayload', `The job ${delivery.spec.jobId} saved no dhis2-json result (${PAYLOAD_FILE}).`];
  return undefined;
}
