import type { KindRef } from './objects.ts';

/** Built-in Kubernetes kinds that Stratus reads or writes through the Cluster port. */
export const secretKind: KindRef = {
  apiVersion: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
  statusSubresource: false,
};
export const configMapKind: KindRef = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  statusSubresource: false,
};
export const eventKind: KindRef = {
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
  statusSubresource: false,
};
export const leaseKind: KindRef = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
  statusSubresource: false,
};
export const jobKind: KindRef = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  plural: 'jobs',
  namespaced: true,
  statusSubresource: true,
};
