/**
 * The registry: the one list of the processes the engine runs, each an implementation paired with the
 * description it is served with. `/processes` lists exactly these (`IMPLEMENTED_PROCESSES` derives from it), and
 * a process joins it only when it passes every official test vector (`test/openeo-vectors/`).
 */
import { loadDescription } from './descriptions/load.ts';
import type { ProcessDescription } from './descriptions/types.ts';
import type { ProcessCatalogue } from './graph/parse.ts';
import type { JsonSchema, ParameterSchema } from './schema/match.ts';
import type { ProcessDefinition, ProcessRegistry, RegisteredProcess } from './process.ts';
import { arrayProcesses } from './processes/arrays.ts';
import { comparisonProcesses } from './processes/comparison.ts';
import { dateProcesses } from './processes/dates.ts';
import { logicProcesses } from './processes/logic.ts';
import { mathProcesses } from './processes/math.ts';
import { miscProcesses } from './processes/misc.ts';
import { reducerProcesses } from './processes/reducers.ts';
import { textProcesses } from './processes/texts.ts';
import { applyProcesses } from './processes/cube/apply.ts';
import { dimensionProcesses } from './processes/cube/dimensions.ts';
import { exportWorkflows } from './processes/cube/export-workflows.ts';
import { filterProcesses } from './processes/cube/filters.ts';
import { ioProcesses } from './processes/cube/io.ts';
import { maskProcesses } from './processes/cube/masks.ts';
import { resampleProcesses } from './processes/cube/resample.ts';
import { spatialProcesses } from './processes/cube/spatial.ts';
import { temporalProcesses } from './processes/cube/temporal.ts';
import { climateIndexProcesses } from './indices/processes.ts';
import { etccdiProcesses } from './indices/etccdi/processes.ts';

export const PROCESS_DEFINITIONS: readonly ProcessDefinition[] = [
  ...mathProcesses,
  ...comparisonProcesses,
  ...logicProcesses,
  ...arrayProcesses,
  ...reducerProcesses,
  ...textProcesses,
  ...dateProcesses,
  ...miscProcesses,
  ...applyProcesses,
  ...dimensionProcesses,
  ...filterProcesses,
  ...temporalProcesses,
  ...maskProcesses,
  ...resampleProcesses,
  ...spatialProcesses,
  ...ioProcesses,
  ...climateIndexProcesses,
  ...etccdiProcesses,
  ...exportWorkflows,
];

/** A registry of `definitions`, each with its description (loaded once; a missing one throws). */
export function createRegistry(definitions: readonly ProcessDefinition[]): ProcessRegistry {
  const processes = new Map<string, RegisteredProcess>();
  for (const definition of definitions) {
    if (processes.has(definition.id)) throw new Error(`process ${definition.id} is defined twice`);
    const description = loadDescription(definition.id);
    processes.set(definition.id, { ...definition, description, checked: withoutDomainBounds(description, definition) });
  }
  const ids = [...processes.keys()].sort();
  return { get: (id) => processes.get(id), ids: () => ids };
}

const BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];

function withoutDomainBounds(description: ProcessDescription, definition: ProcessDefinition): ProcessDescription {
  const lifted = new Set(definition.domainParameters ?? []);
  if (lifted.size === 0) return description;
  const strip = (schema: ParameterSchema): ParameterSchema =>
    Array.isArray(schema)
      ? schema.map((s) => strip(s) as JsonSchema)
      : Object.fromEntries(Object.entries(schema).filter(([key]) => !BOUNDS.includes(key)));
  return {
    ...description,
    parameters: description.parameters.map((p) => (lifted.has(p.name) ? { ...p, schema: strip(p.schema) } : p)),
  };
}

let builtIn: ProcessRegistry | undefined;

/** The registry of every process Stratus implements. */
export function builtInRegistry(): ProcessRegistry {
  builtIn ??= createRegistry(PROCESS_DEFINITIONS);
  return builtIn;
}

/** The registry as the graph parser sees it. */
export function catalogueOf(registry: ProcessRegistry): ProcessCatalogue {
  return { description: (id: string): ProcessDescription | undefined => registry.get(id)?.checked };
}
