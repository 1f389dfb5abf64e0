import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resourceKinds } from '../registry.ts';
import { crdFor } from './build.ts';
import { lintStructuralSchema } from './lint.ts';
import { crdFileName, renderCrd } from './render.ts';
import { toStructuralSchema } from './to-openapi.ts';

const crdsDir = resolve(import.meta.dirname, '../../../crds');

describe('structural schema post-processor', () => {
  it('turns free-form objects into preserve-unknown-fields and drops additionalProperties beside properties', () => {
    const schema = toStructuralSchema(
      z.object({ graph: z.record(z.string(), z.unknown()), any: z.unknown(), fixed: z.object({ a: z.string() }) }),
    );
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.graph).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    // z.unknown() is any JSON value, not only an object: a number or null must reach the zod schema unrefused.
    expect(props.any).toEqual({ nullable: true, 'x-kubernetes-preserve-unknown-fields': true });
    expect(props.fixed).not.toHaveProperty('additionalProperties');
  });

  it('keeps the undeclared members of a loose object, and any value of a union of other types', () => {
    const schema = toStructuralSchema(
      z.object({
        loose: z.looseObject({ a: z.string() }),
        objectOrList: z.union([z.record(z.string(), z.unknown()), z.array(z.string())]).describe('Either.'),
      }),
    );
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.loose).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(props.objectOrList).toEqual({ description: 'Either.', 'x-kubernetes-preserve-unknown-fields': true });
    expect(lintStructuralSchema(schema)).toEqual([]);
  });

  it('writes unions of literals as one enum and string|integer as int-or-string', () => {
    const schema = toStructuralSchema(
      z.object({ version: z.union([z.literal(2), z.literal(3)]), size: z.union([z.string(), z.number().int()]) }),
    );
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.version).toEqual({ type: 'integer', enum: [2, 3] });
    expect(props.size).toEqual({ 'x-kubernetes-int-or-string': true });
  });
});

describe('structural linter', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['a node without type', { type: 'object', properties: { a: { description: 'x' } } }, 'missing-type'],
    ['a $ref', { type: 'object', properties: { a: { $ref: '#/x', type: 'string' } } }, 'forbidden-keyword'],
    [
      'additionalProperties beside properties',
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      'additional-properties',
    ],
    ['tuple items', { type: 'array', items: [{ type: 'string' }] }, 'items-tuple'],
    ['an array without items', { type: 'array' }, 'items-missing'],
    ['type inside anyOf', { type: 'object', anyOf: [{ type: 'string' }] }, 'value-validation'],
    ['an unknown type', { type: 'null' }, 'bad-type'],
    ['int-or-string with a type', { type: 'string', 'x-kubernetes-int-or-string': true }, 'int-or-string-type'],
  ];
  it.each(cases)('flags %s', (_name, schema, rule) => {
    expect(lintStructuralSchema(schema).map((f) => f.rule)).toContain(rule);
  });

  it.each(resourceKinds.map((k) => [k.kind, k] as const))('finds nothing wrong in the %s CRD', (_name, kind) => {
    expect(lintStructuralSchema(toStructuralSchema(kind.schema))).toEqual([]);
  });
});

describe('generated CRDs', () => {
  it.each(resourceKinds.map((k) => [k.kind, k] as const))('crds/ holds the current %s CRD', async (_name, kind) => {
    const committed = await readFile(join(crdsDir, crdFileName(kind)), 'utf8');
    expect(committed, 'crds/ drifted from core/resources; run `make crds`').toBe(renderCrd(kind));
  });

  it('declares names, status subresource, printer columns and descriptions', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking a plain generated document
    const crd = crdFor(resourceKinds.find((k) => k.kind === 'Ingestion')!) as any;
    expect(crd.metadata.name).toBe('ingestions.climate.stratus.dev');
    expect(crd.spec.names).toMatchObject({ kind: 'Ingestion', shortNames: ['sing'], categories: ['stratus'] });
    const version = crd.spec.versions[0];
    expect(version.subresources).toEqual({ status: {} });
    expect(version.additionalPrinterColumns.map((c: { name: string }) => c.name)).toEqual([
      'Source',
      'Mode',
      'Phase',
      'Progress',
      'Ready',
      'Age',
    ]);
    expect(version.schema.openAPIV3Schema.properties.spec.properties.maxAttempts).toMatchObject({
      type: 'integer',
      default: 3,
      description: 'Attempts before the run fails.',
    });
  });
});

describe('docs/resources.md', () => {
  it('is the reference generated from the schemas', async () => {
    const { renderReference } = await import('./reference.ts');
    const committed = await readFile(resolve(crdsDir, '../docs/resources.md'), 'utf8');
    expect(committed, 'docs/resources.md drifted from core/resources; run `make crds`').toBe(
      renderReference(resourceKinds),
    );
  });
});
