/**
 * The metadata of DHIS2 tracker targets, `Program` and `TrackedEntityType` resources, found by their DHIS2 uid.
 * Kubernetes names are lower case and DHIS2 uids are not, so the uid is `spec.uid` and a lookup lists the namespace
 * and matches it: one list of a handful of objects, no label to keep in step with the spec. Of two resources with
 * one uid, the one whose name sorts first counts (as `Workflow`s with one process id do).
 */
import type { Cluster } from '../cluster/port.ts';
import { ENABLE_CHANGE_LOG_DEFAULT, programKind, type Program } from '../resources/program/schema.ts';
import { trackedEntityTypeKind, type TrackedEntityType } from '../resources/tracked-entity-type/schema.ts';
import type { ResourceKind } from '../resources/kind.ts';

export type TrackerMetadata = Program | TrackedEntityType;

export const trackerMetadataKinds = { Program: programKind, TrackedEntityType: trackedEntityTypeKind } as const;

/** The resource of `kind` in `namespace` whose `spec.uid` is `uid`, if any; one being deleted is gone already. */
export async function findByUid<T extends TrackerMetadata>(
  cluster: Pick<Cluster, 'list'>,
  kind: ResourceKind,
  namespace: string,
  uid: string,
): Promise<T | undefined> {
  const { items } = await cluster.list<T>(kind, { namespace });
  return items
    .filter((item) => item.spec.uid === uid && !item.metadata.deletionTimestamp)
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))[0];
}

/**
 * Whether the object's tracker changelog is on. The schema defaults the switch (and the CRD's default does on a
 * real API server), but an object written without validation may lack it: then DHIS2's default holds.
 */
export const changeLogEnabled = (object: TrackerMetadata): boolean =>
  object.spec.enableChangeLog ?? ENABLE_CHANGE_LOG_DEFAULT;
