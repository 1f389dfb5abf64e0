import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { sharedDir } from '../../../test/support/shared-dir.ts';
import { ETCCDI_INDICES } from '../indices/etccdi/catalogue.ts';
import { builtInRegistry } from '../registry.ts';
import { OFFICIAL_DIR, STRATUS_DIR, officialDescriptionPath } from './load.ts';

const UPSTREAM = join(sharedDir(), 'openeo-processes');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/**
 * openapi.yaml's schemas as plain JSON Schema: OpenAPI 3.0's `nullable` becomes a `null` type, and `oneOf`
 * becomes `anyOf`, because openEO lists overlapping alternatives under it (a generic data type schema also fits
 * the process-graph and data cube variants).
 */
function asJsonSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asJsonSchema);
  if (typeof value !== 'object' || value === null) return value;
  const { nullable, ...rest } = value as Record<string, unknown>;
  const out = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k === 'oneOf' ? 'anyOf' : k, asJsonSchema(v)]));
  if (nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/** openEO's `process` schema (openapi.yaml), with the fields `GET /processes` requires of predefined processes. */
function processValidator() {
  const openapi = asJsonSchema(parse(readFileSync(join(sharedDir(), 'openeo-api', 'openapi.yaml'), 'utf8'))) as Record<
    string,
    unknown
  >;
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addSchema({ ...openapi, $id: 'openeo-api' });
  return ajv.compile({
    allOf: [{ $ref: 'openeo-api#/components/schemas/process' }],
    required: ['id', 'description', 'parameters', 'returns'],
  });
}

describe('process descriptions', () => {
  const registry = builtInRegistry();

  it('vendors every official file byte for byte from the shared copy, and only files of listed processes', () => {
    const vendored = files(OFFICIAL_DIR).filter((p) => !p.endsWith('SOURCE.md'));
    for (const path of vendored) {
      const upstream = join(UPSTREAM, relative(OFFICIAL_DIR, path));
      expect(readFileSync(path).equals(readFileSync(upstream)), relative(OFFICIAL_DIR, path)).toBe(true);
    }
    const described = vendored
      .filter((p) => p.endsWith('.json'))
      .map((p) => JSON.parse(readFileSync(p, 'utf8')).id as string)
      .sort();
    expect(described).toEqual(registry.ids().filter((id) => officialDescriptionPath(id)));
  });

  it('names the upstream version and commit the shared copy names', () => {
    const source = readFileSync(join(OFFICIAL_DIR, 'SOURCE.md'), 'utf8');
    const upstream = readFileSync(join(UPSTREAM, 'SOURCE.md'), 'utf8');
    const version = /version ([\w.-]+)/.exec(upstream)![1]!;
    const commit = /commit (\w+)/.exec(upstream)![1]!;
    expect(source).toContain(`version ${version}`);
    expect(source).toContain(`commit ${commit}`);
  });

  it('serves each listed process with a description that fits the openEO process schema', () => {
    const validate = processValidator();
    for (const id of registry.ids()) {
      const description = registry.get(id)!.description;
      expect(validate(description), `${id}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(description.id).toBe(id);
    }
  });

  it("describes Stratus's own processes and parameters in the openEO form, apart from the official ones", () => {
    const own = files(join(STRATUS_DIR, 'processes')).map((p) => JSON.parse(readFileSync(p, 'utf8')).id as string);
    expect(own.sort()).toEqual(
      [
        'aggregate_to_chap_csv',
        'aggregate_to_dhis2_json',
        'apparent_temperature',
        'cooling_degree_days',
        'growing_degree_days',
        'heat_index',
        'heating_degree_days',
        'humidex',
        'load_features',
        'relative_humidity_from_dewpoint',
        'spei',
        'spi',
        'wet_bulb_temperature',
        ...ETCCDI_INDICES.map((index) => index.id),
      ].sort(),
    );
    for (const id of own) expect(officialDescriptionPath(id)).toBeUndefined();
    const weighting = registry.get('aggregate_spatial')!.description.parameters.find((p) => p.name === 'weighting');
    expect(weighting).toMatchObject({ optional: true, default: 'centre', schema: { enum: ['centre', 'coverage'] } });
    const official = JSON.parse(readFileSync(join(UPSTREAM, 'aggregate_spatial.json'), 'utf8'));
    expect(registry.get('aggregate_spatial')!.description.parameters.slice(0, -1)).toEqual(official.parameters);
  });

  it('rejects a description that misses what the schema requires (the validator is not vacuous)', () => {
    const validate = processValidator();
    const { returns: _, ...broken } = registry.get('add')!.description;
    expect(validate(broken)).toBe(false);
    expect(validate({ ...registry.get('add')!.description, parameters: [{ name: 'x' }] })).toBe(false);
  });
});
