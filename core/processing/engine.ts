/**
 * The engine's entry points: validate a process graph, and run one. Both parse and check the whole graph
 * first (`graph/parse.ts`), so a bad graph is refused before any data is read.
 */
import { evaluateGraph } from './evaluate/evaluate.ts';
import { DEFAULT_LIMITS, type EngineLimits } from './graph/limits.ts';
import { parseProcessGraph } from './graph/parse.ts';
import type { Graph, UserProcessResolver } from './graph/types.ts';
import type { MemoryBudget } from './memory-budget.ts';
import type { ProcessRegistry } from './process.ts';
import { builtInRegistry, catalogueOf } from './registry.ts';
import type { EngineServices } from './services.ts';

export interface RunOptions {
  registry?: ProcessRegistry;
  userProcesses?: UserProcessResolver;
  services?: EngineServices;
  limits?: Partial<EngineLimits>;
  signal?: AbortSignal;
  /** Counts the memory of the whole run's arrays and materialized cubes; without it nothing is counted. */
  memory?: MemoryBudget;
  /** Values for the root graph's parameters (a user-defined process run with arguments). */
  arguments?: Record<string, unknown>;
}

function settings(options: RunOptions) {
  const registry = options.registry ?? builtInRegistry();
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  return { registry, limits };
}

/** Parses and checks a process graph; throws a ProcessingError when it would be refused. */
export async function validateProcessGraph(processGraph: unknown, options: RunOptions = {}): Promise<Graph> {
  const { registry, limits } = settings(options);
  const parameters = Object.keys(options.arguments ?? {}).map((name) => ({ name, description: '', schema: {} }));
  return parseProcessGraph(processGraph, {
    processes: catalogueOf(registry),
    limits,
    parameters,
    ...(options.userProcesses ? { userProcesses: options.userProcesses } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.memory ? { memory: options.memory } : {}),
  });
}

/** Runs a process graph and returns its result node's value (data cubes lazy). */
export async function runProcessGraph(processGraph: unknown, options: RunOptions = {}): Promise<unknown> {
  const { registry, limits } = settings(options);
  const graph = await validateProcessGraph(processGraph, options);
  return evaluateGraph(graph, options.arguments ?? {}, {
    processes: registry,
    limits,
    services: options.services ?? {},
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.memory ? { memory: options.memory } : {}),
  });
}
