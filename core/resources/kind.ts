import { z } from 'zod';
import type { KindRef } from '../cluster/objects.ts';
import { metadataSchema } from './common.ts';
import type { ConditionCatalogue } from './conditions.ts';

export const GROUP = 'climate.stratus.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface ResourceKind extends KindRef {
  group: string;
  version: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  description: string;
  schema: z.ZodType;
  specSchema: z.ZodType;
  statusSchema: z.ZodType;
  printerColumns: PrinterColumn[];
  /** The reasons of its conditions and Events, for the kinds a controller reconciles. */
  conditions?: ConditionCatalogue;
}

interface KindDefinition<Spec extends z.ZodType, Status extends z.ZodType> {
  kind: string;
  plural: string;
  shortNames: string[];
  description: string;
  spec: Spec;
  status: Status;
  /** Columns besides Ready and Age, which every kind shows. */
  columns?: PrinterColumn[];
  conditions?: ConditionCatalogue;
}

const readyColumn: PrinterColumn = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  description: 'Whether the object is ready.',
};
const ageColumn: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** Builds the whole-object schema and the registration of one kind from its spec and status schemas. */
export function defineKind<Spec extends z.ZodType, Status extends z.ZodType>(definition: KindDefinition<Spec, Status>) {
  const schema = z
    .object({
      apiVersion: z.literal(API_VERSION).describe('APIVersion of this representation of the object.'),
      kind: z.literal(definition.kind).describe('Kind of the object.'),
      metadata: metadataSchema,
      spec: definition.spec,
      status: definition.status.optional(),
    })
    .describe(definition.description);
  const kind: ResourceKind = {
    apiVersion: API_VERSION,
    kind: definition.kind,
    plural: definition.plural,
    singular: definition.kind.toLowerCase(),
    namespaced: true,
    statusSubresource: true,
    group: GROUP,
    version: VERSION,
    shortNames: definition.shortNames,
    categories: ['stratus'],
    description: definition.description,
    schema,
    specSchema: definition.spec,
    statusSchema: definition.status,
    printerColumns: [...(definition.columns ?? []), readyColumn, ageColumn],
    ...(definition.conditions && { conditions: definition.conditions }),
  };
  return { kind, schema };
}
