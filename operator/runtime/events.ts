import { createHash } from 'node:crypto';
import { eventKind } from '../../core/cluster/builtin-kinds.ts';
import { isApiError } from '../../core/cluster/errors.ts';
import { microTime, type KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster } from '../../core/cluster/port.ts';

export const REPORTING_CONTROLLER = 'climate.stratus.dev/operator';

interface EventSeries {
  count: number;
  lastObservedTime: string;
}

/**
 * Records an `events.k8s.io/v1` Event about `regarding`. The same (object, type, reason, note) lands on one
 * Event whose `series.count` grows, as the Kubernetes event recorder does, instead of one object per repeat.
 */
export async function recordEvent(
  cluster: Cluster,
  regarding: KubeObject,
  event: { type: 'Normal' | 'Warning'; reason: string; message: string },
  now: Date,
  reportingInstance: string,
): Promise<void> {
  const { name, namespace, uid } = regarding.metadata;
  const digest = createHash('sha256')
    .update(`${uid}\0${event.type}\0${event.reason}\0${event.message}`)
    .digest('hex')
    .slice(0, 12);
  const eventName = `${name}.${digest}`.slice(0, 253);
  const time = microTime(now);
  const existing = await cluster.get<KubeObject>(eventKind, eventName, namespace);
  if (existing) {
    const series = existing.series as EventSeries | undefined;
    await cluster.patch(
      eventKind,
      eventName,
      { type: 'merge', body: { series: { count: (series?.count ?? 1) + 1, lastObservedTime: time } } },
      namespace,
    );
    return;
  }
  try {
    await cluster.create(eventKind, {
      apiVersion: eventKind.apiVersion,
      kind: eventKind.kind,
      metadata: { name: eventName, namespace },
      eventTime: time,
      reportingController: REPORTING_CONTROLLER,
      reportingInstance,
      action: event.reason,
      reason: event.reason,
      note: event.message.slice(0, 1024),
      type: event.type,
      regarding: { apiVersion: regarding.apiVersion, kind: regarding.kind, name, namespace, uid },
    });
  } catch (err) {
    // Two reconciles raced to record the same event: the other one did.
    if (!isApiError(err, 'AlreadyExists')) throw err;
  }
}
