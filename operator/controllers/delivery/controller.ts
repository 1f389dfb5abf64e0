import { createHash } from 'node:crypto';
import type { Cluster } from '../../../core/cluster/port.ts';
import { readCheckpoint } from '../../../core/exports/checkpoint.ts';
import { deliveryKind, EXPORT_LABEL, type Delivery } from '../../../core/resources/delivery/schema.ts';
import { exportKind, type Export } from '../../../core/resources/export/schema.ts';
import { processingJobKind, type ProcessingJob } from '../../../core/resources/processing-job/schema.ts';
import { programKind, type Program } from '../../../core/resources/program/schema.ts';
import type { RetryBackoff } from '../../../core/runs/backoff.ts';
import { claimWriter, type HolderCheck } from '../../../core/resources/writer-claim/claim.ts';
import { deliveryCheckpointPath, storeFile } from '../../../core/stores/layout.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { deliveryCleanupName } from './attempt.ts';
import { planDelivery, type DeliveryObserved } from './plan.ts';

/** One target whatever the spelling of its URL: scheme and host are case-insensitive, a trailing slash is noise. */
export const targetOf = (exported: Export) => {
  const url = new URL(exported.spec.target.url);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
};

const finished = (d: Delivery) => d.status?.phase === 'successful' || d.status?.phase === 'failed';

/** When a delivery was asked for: to the millisecond when the API made it, else its creation's whole second. */
const requestedAt = (d: Delivery) => Date.parse(String(d.spec.requestedAt ?? d.metadata.creationTimestamp ?? '')) || 0;

/** Deliveries run oldest first; the name breaks ties. */
const olderThan = (a: Delivery, b: Delivery) =>
  requestedAt(a) < requestedAt(b) || (requestedAt(a) === requestedAt(b) && a.metadata.name < b.metadata.name);

/** Unfinished deliveries to the same target that were created before `delivery`, or started already. */
async function ahead(delivery: Delivery, target: string, cluster: Cluster): Promise<string[]> {
  const namespace = delivery.metadata.namespace;
  const [deliveries, exports] = await Promise.all([
    cluster.list<Delivery>(deliveryKind, { namespace }),
    cluster.list<Export>(exportKind, { namespace }),
  ]);
  const targets = new Map(exports.items.map((e) => [e.metadata.name, targetOf(e)]));
  return deliveries.items
    .filter(
      (d) =>
        d.metadata.name !== delivery.metadata.name &&
        !finished(d) &&
        !d.metadata.deletionTimestamp &&
        targets.get(d.spec.exportId) === target &&
        (olderThan(d, delivery) || (d.status?.attempt ?? 0) > 0),
    )
    .map((d) => d.metadata.name);
}

/**
 * Ended deliveries of the export past its history limit, newest kept: by when they ended, then by name. Those
 * being deleted already are left out, and so are deliveries applied without the export label.
 */
async function expiredOf(delivery: Delivery, exported: Export | undefined, cluster: Cluster): Promise<string[]> {
  if (!exported || !finished(delivery)) return [];
  // The export's deliveries by their label (the API sets it), not the namespace's every delivery on every resync.
  const { items } = await cluster.list<Delivery>(deliveryKind, {
    namespace: delivery.metadata.namespace,
    labelSelector: `${EXPORT_LABEL}=${delivery.spec.exportId}`,
  });
  const ended = items
    .filter((d) => d.spec.exportId === delivery.spec.exportId && finished(d) && !d.metadata.deletionTimestamp)
    .sort(
      (a, b) =>
        (b.status?.finishedAt ?? '').localeCompare(a.status?.finishedAt ?? '') ||
        b.metadata.name.localeCompare(a.metadata.name),
    );
  return ended.slice(exported.spec.deliveryHistoryLimit).map((d) => d.metadata.name);
}

const deliveryHolder: HolderCheck = async (cluster, holder, namespace) => {
  const held = await cluster.get<Delivery>(deliveryKind, holder, namespace);
  return held ? !finished(held) && !held.metadata.deletionTimestamp : undefined;
};

/**
 * What runs before `delivery` at its target. Deliveries wait for older ones (oldest first), and one runs at a
 * time for certain through the target's WriterClaim, which changes hands only by the cluster's create and
 * compare-and-swap: two that look at once cannot both start.
 */
async function before(delivery: Delivery, exported: Export, cluster: Cluster): Promise<string[]> {
  const target = targetOf(exported);
  const older = await ahead(delivery, target, cluster);
  if (older.length > 0) return older;
  const claimName = `delivery-target-${createHash('sha256').update(target).digest('hex').slice(0, 20)}`;
  const namespace = delivery.metadata.namespace ?? 'default';
  const claim = await claimWriter(cluster, namespace, claimName, delivery.metadata.name, undefined, deliveryHolder);
  return claim.claimed ? [] : [claim.holder];
}

export function deliveryController(instance: {
  storageRoot: string;
  changelog?: { aggregate: boolean };
  backoff?: RetryBackoff;
}): ControllerDefinition<Delivery, DeliveryObserved> {
  return {
    name: 'delivery',
    kind: deliveryKind,
    observe: async (delivery, cluster, jobs) => {
      const namespace = delivery.metadata.namespace;
      const name = delivery.status?.jobName;
      const [exported, source] = await Promise.all([
        cluster.get<Export>(exportKind, delivery.spec.exportId, namespace),
        delivery.spec.jobId === undefined
          ? undefined
          : cluster.get<ProcessingJob>(processingJobKind, delivery.spec.jobId, namespace),
      ]);
      const waiting = !finished(delivery) && (delivery.status?.attempt ?? 0) === 0 && exported !== undefined;
      const programName = exported?.spec.target.program;
      const deleting = delivery.metadata.deletionTimestamp !== undefined;
      return {
        job: name ? jobs?.get(name, namespace) : undefined,
        cleanup: deleting ? jobs?.get(deliveryCleanupName(delivery), namespace) : undefined,
        expired: deleting ? [] : await expiredOf(delivery, exported, cluster),
        export: exported,
        program: programName ? await cluster.get<Program>(programKind, programName, namespace) : undefined,
        source,
        checkpoint: await readCheckpoint(
          storeFile(
            instance.storageRoot,
            deliveryCheckpointPath(namespace ?? 'default', delivery.spec.exportId, delivery.metadata.name),
          ),
        ).catch(() => undefined),
        ahead: waiting ? await before(delivery, exported, cluster) : [],
        storageRoot: instance.storageRoot,
        changelog: instance.changelog?.aggregate ?? true,
        ...(instance.backoff && { backoff: instance.backoff }),
      };
    },
    plan: planDelivery,
    runKind: () => 'delivery',
  };
}
