/** The Kubernetes object envelope shared by every kind, built-in or Stratus's own. */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  generateName?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
}

export interface KubeObject<Spec = unknown, Status = unknown> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Spec;
  status?: Status;
  /** Built-in kinds (Secret, ConfigMap, Event, Lease) carry other top-level members. */
  [member: string]: unknown;
}

/** What the Cluster port needs to know of a kind to address it. */
export interface KindRef {
  /** e.g. `climate.stratus.dev/v1alpha1`, `v1`, `batch/v1` */
  apiVersion: string;
  kind: string;
  /** lower-case plural used in REST paths, e.g. `datasets` */
  plural: string;
  namespaced: boolean;
  /** Whether `status` is a subresource (spec writes ignore it, status writes ignore everything else). */
  statusSubresource: boolean;
}

export function objectKey(obj: { metadata: { namespace?: string; name: string } }): string {
  return obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name;
}

/** When the store created the object, as RFC 3339; empty before it is stored. Schemas keep metadata loose. */
export function creationTimestamp(object: { metadata: unknown }): string {
  return (object.metadata as ObjectMeta).creationTimestamp ?? '';
}

/**
 * A Kubernetes MicroTime (an Event's `eventTime`, a Lease's `renewTime`): RFC 3339 with exactly six fractional
 * digits; the API server refuses the three that `toISOString` gives.
 */
export function microTime(date: Date): string {
  return date.toISOString().replace(/Z$/, '000Z');
}
