import type { ResourceKind } from '../kind.ts';
import { toStructuralSchema } from './to-openapi.ts';

/** The apiextensions.k8s.io/v1 CustomResourceDefinition of one kind. */
export function crdFor(kind: ResourceKind): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${kind.plural}.${kind.group}`,
      labels: { 'app.kubernetes.io/part-of': 'stratus' },
    },
    spec: {
      group: kind.group,
      names: {
        kind: kind.kind,
        listKind: `${kind.kind}List`,
        plural: kind.plural,
        singular: kind.singular,
        shortNames: kind.shortNames,
        categories: kind.categories,
      },
      scope: kind.namespaced ? 'Namespaced' : 'Cluster',
      versions: [
        {
          name: kind.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: toStructuralSchema(kind.schema) },
          subresources: kind.statusSubresource ? { status: {} } : {},
          additionalPrinterColumns: kind.printerColumns,
        },
      ],
    },
  };
}
