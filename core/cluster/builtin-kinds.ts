import type { KindRef } from './objects.ts';

/** Built-in Kubernetes kinds that Stratus writes through the Cluster port. */
export const eventKind: KindRef = {
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
  statusSubresource: false,
};

export const customResourceDefinitionKind: KindRef = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
  statusSubresource: true,
};

export const namespaceKind: KindRef = {
  apiVersion: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  statusSubresource: true,
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

export const podKind: KindRef = {
  apiVersion: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
  statusSubresource: true,
};

export const configMapKind: KindRef = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  statusSubresource: false,
};
