import { z } from 'zod';

/** A node of an OpenAPI v3 schema as Kubernetes accepts it in a CRD. */
export type JSONSchemaNode = { [key: string]: unknown };

const PRESERVE = 'x-kubernetes-preserve-unknown-fields';
const INT_OR_STRING = 'x-kubernetes-int-or-string';

/**
 * Turns a zod schema into a Kubernetes *structural* schema: zod's JSON Schema output, rewritten where it uses
 * constructs that the API server rejects or prunes badly (see `lint.ts` for the rules).
 */
export function toStructuralSchema(schema: z.ZodType): JSONSchemaNode {
  const raw = z.toJSONSchema(schema, { io: 'input', target: 'openapi-3.0', unrepresentable: 'any' }) as JSONSchemaNode;
  delete raw.$schema;
  return rewrite(raw, []);
}

const isEmptyObject = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/** z.record(z.string(), z.unknown()): an object of any members. */
const isFreeForm = (node: JSONSchemaNode) =>
  node.type === 'object' && node.properties === undefined && isEmptyObject(node.additionalProperties);

function mergeEnums(variants: JSONSchemaNode[]): JSONSchemaNode | undefined {
  if (!variants.every((v) => Array.isArray(v.enum) && typeof v.type === 'string')) return undefined;
  const types = new Set(variants.map((v) => v.type));
  if (types.size !== 1) return undefined;
  const values = variants.flatMap((v) => v.enum as unknown[]);
  const type = [...types][0] === 'number' && values.every((v) => Number.isInteger(v)) ? 'integer' : [...types][0];
  return { type, enum: values };
}

function rewrite(node: JSONSchemaNode, path: string[]): JSONSchemaNode {
  if (path.length === 1 && path[0] === 'metadata') {
    // The API server owns metadata validation; a CRD may only restrict name, so leave it open.
    return { type: 'object' };
  }
  const description = node.description;
  if (path.length === 1 && (path[0] === 'apiVersion' || path[0] === 'kind')) {
    // Pinned by the API server from the URL; an enum here would break the next served version.
    return { type: 'string', ...(description ? { description } : {}) };
  }
  if (Object.keys(node).every((k) => k === 'description')) {
    // z.unknown(): any JSON value, null included, which a structural schema says by preserving it without a type.
    return { ...(description ? { description } : {}), nullable: true, [PRESERVE]: true };
  }
  if (isFreeForm(node)) {
    return { ...(description ? { description } : {}), type: 'object', [PRESERVE]: true };
  }
  const out: JSONSchemaNode = { ...node };
  if ('const' in out) {
    out.enum = [out.const];
    delete out.const;
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const variants = out[key] as JSONSchemaNode[] | undefined;
    if (!variants) continue;
    const merged = mergeEnums(variants);
    const types = new Set(variants.map((v) => v.type));
    if (merged) {
      Object.assign(out, merged);
      delete out[key];
    } else if (types.size === 2 && types.has('string') && (types.has('integer') || types.has('number'))) {
      delete out[key];
      out[INT_OR_STRING] = true;
    } else if (types.size > 1) {
      // Alternatives of other types (an object or a list, say) have no structural form: the API server keeps any
      // value, and the zod schema is what checks it.
      return { ...(description ? { description } : {}), [PRESERVE]: true };
    }
  }
  if (out.properties !== undefined && isEmptyObject(out.additionalProperties)) {
    // A loose object (z.looseObject): its declared members are checked, and others are kept, not pruned.
    out[PRESERVE] = true;
  }
  if (out.properties !== undefined) delete out.additionalProperties;
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  if (out.properties) {
    const properties: Record<string, JSONSchemaNode> = {};
    for (const [name, child] of Object.entries(out.properties as Record<string, JSONSchemaNode>)) {
      properties[name] = rewrite(child, [...path, name]);
    }
    out.properties = properties;
  }
  if (out.items && typeof out.items === 'object' && !Array.isArray(out.items)) {
    out.items = rewrite(out.items as JSONSchemaNode, [...path, '[]']);
  }
  if (out.additionalProperties && typeof out.additionalProperties === 'object') {
    out.additionalProperties = rewrite(out.additionalProperties as JSONSchemaNode, [...path, '*']);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const variants = out[key] as JSONSchemaNode[] | undefined;
    if (variants) out[key] = variants.map((v) => rewrite(v, path));
  }
  return out;
}
