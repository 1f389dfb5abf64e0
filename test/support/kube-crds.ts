/**
 * CustomResourceDefinitions on the test API server: Stratus's own from crds/, and free-form ones for the test
 * kinds of the contract suite. Installing waits until the server serves each kind.
 */
import { join } from 'node:path';
import { customResourceDefinitionKind } from '../../core/cluster/builtin-kinds.ts';
import { applyManifests, loadManifests } from '../../core/cluster/manifests.ts';
import type { KindRef, KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster } from '../../core/cluster/port.ts';
import { eventually } from './eventually.ts';

interface CrdStatus {
  conditions?: { type: string; status: string; message?: string }[];
}

/** A CRD whose spec and status take any fields: what the contract suite's test kinds need. */
export function freeFormCrd(kind: KindRef): KubeObject {
  const [group, version] = kind.apiVersion.split('/') as [string, string];
  const freeForm = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    apiVersion: customResourceDefinitionKind.apiVersion,
    kind: customResourceDefinitionKind.kind,
    metadata: { name: `${kind.plural}.${group}` },
    spec: {
      group,
      names: { kind: kind.kind, plural: kind.plural, singular: kind.kind.toLowerCase(), listKind: `${kind.kind}List` },
      scope: kind.namespaced ? 'Namespaced' : 'Cluster',
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: freeForm, status: freeForm } } },
          ...(kind.statusSubresource ? { subresources: { status: {} } } : {}),
        },
      ],
    },
  };
}

/** Reads every CRD under `dir`. */
export async function loadCrds(dir: string): Promise<KubeObject[]> {
  const files = await loadManifests(dir, (object) => ({ ok: true, object: object as KubeObject }));
  return files.flatMap((f) => f.documents);
}

export const stratusCrdsDir = join(import.meta.dirname, '../../crds');

/**
 * Applies the CRDs and waits until each is Established (names accepted, served). A CRD the server refuses
 * throws the server's message; one that never becomes Established fails with its conditions.
 */
export async function installCrds(cluster: Cluster, crds: KubeObject[]): Promise<void> {
  await applyManifests(cluster, [{ file: 'crds', documents: crds }], () => customResourceDefinitionKind);
  for (const crd of crds) {
    await eventually(
      async () => {
        const stored = await cluster.get<KubeObject<unknown, CrdStatus>>(
          customResourceDefinitionKind,
          crd.metadata.name,
        );
        const established = stored?.status?.conditions?.find((c) => c.type === 'Established');
        return established?.status === 'True' ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  }
}
