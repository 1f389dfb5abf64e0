import type { JSONSchemaNode } from './to-openapi.ts';

export interface Finding {
  path: string;
  rule: string;
  message: string;
}

const FORBIDDEN = ['$ref', '$defs', 'definitions', 'dependencies', 'deprecated', 'id', 'patternProperties', 'const'];
const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

/**
 * Checks the rules of Kubernetes structural schemas (apiextensions.k8s.io/v1) that the API server enforces,
 * so a schema change fails `make test` here instead of `kubectl apply` on a cluster.
 */
export function lintStructuralSchema(root: JSONSchemaNode): Finding[] {
  const findings: Finding[] = [];
  visit(root, '', true, findings);
  return findings;
}

function visit(node: JSONSchemaNode, path: string, specifiesType: boolean, findings: Finding[]): void {
  const at = path || '.';
  const report = (rule: string, message: string) => findings.push({ path: at, rule, message });
  for (const key of FORBIDDEN) if (key in node) report('forbidden-keyword', `"${key}" is not allowed in a CRD schema`);
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  if (specifiesType) {
    if (node.type === undefined && !preserve && !intOrString) report('missing-type', 'every node needs a type');
    if (node.type !== undefined && (typeof node.type !== 'string' || !TYPES.has(node.type))) {
      report('bad-type', `type must be one of ${[...TYPES].join(', ')}`);
    }
  }
  if (node.properties !== undefined && node.additionalProperties !== undefined) {
    report('additional-properties', 'additionalProperties and properties are mutually exclusive');
  }
  if (Array.isArray(node.items)) report('items-tuple', 'items must be one schema, not a list');
  if (node.type === 'array' && node.items === undefined) report('items-missing', 'an array needs items');
  if (intOrString && node.type !== undefined) report('int-or-string-type', 'x-kubernetes-int-or-string excludes type');
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const variants = node[key] as JSONSchemaNode[] | undefined;
    for (const [i, variant] of (variants ?? []).entries()) {
      for (const banned of ['type', 'default', 'description', 'nullable', 'additionalProperties']) {
        if (banned in variant) {
          findings.push({
            path: `${at}.${key}[${i}]`,
            rule: 'value-validation',
            message: `"${banned}" is not allowed inside ${key}`,
          });
        }
      }
    }
  }
  if (typeof node.properties === 'object' && node.properties !== null) {
    for (const [name, child] of Object.entries(node.properties as Record<string, JSONSchemaNode>)) {
      visit(child, `${path}.${name}`, true, findings);
    }
  }
  if (node.items && typeof node.items === 'object' && !Array.isArray(node.items)) {
    visit(node.items as JSONSchemaNode, `${path}[]`, true, findings);
  }
  if (node.additionalProperties && typeof node.additionalProperties === 'object') {
    visit(node.additionalProperties as JSONSchemaNode, `${path}.*`, true, findings);
  }
}
