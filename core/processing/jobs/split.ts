/**
 * When a batch job's attempt is split into parts that workers run at once (an Indexed Job on Kubernetes, child
 * processes in embedded mode): its graph saves one Zarr store, whose chunks the parts write in disjoint blocks of
 * time, and it loads more time steps than one part should take. Every part evaluates the whole graph lazily and
 * computes only the chunks of its block, so the split is right for any graph; it pays when the work is per time
 * step, as it mostly is for the long daily ranges that make a job large.
 */
import { formatPeriod, periodRange, type PeriodType } from '../../periods/index.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import type { Dataset } from '../../resources/dataset/schema.ts';
import { isObject } from './references.ts';
import type { SplitOptions } from '../../runs/options.ts';

/** The top-level nodes of a graph. */
const nodesOf = (graph: unknown) =>
  isObject(graph) ? Object.values(graph).filter((n): n is Record<string, unknown> => isObject(n)) : [];

const argumentsOf = (node: Record<string, unknown>) => (isObject(node.arguments) ? node.arguments : {});

/** Whether the graph's only saved result is a Zarr store: what parts can write together. */
export function savesOneZarr(graph: unknown): boolean {
  const saves = nodesOf(graph).filter((n) => n.process_id === 'save_result');
  return saves.length === 1 && String(argumentsOf(saves[0]!).format).toLowerCase() === 'zarr';
}

/** The native period holding an instant of an openEO temporal bound (`2024-01-05`, `2024-01-05T06:00:00Z`). */
function periodOf(type: PeriodType, bound: unknown, end: boolean): string | undefined {
  if (typeof bound !== 'string') return undefined;
  const at = Date.parse(bound);
  if (Number.isNaN(at)) return undefined;
  // The end of an openEO interval is exclusive: its last period is the one just before it.
  return formatPeriod({ type, start: new Date(end ? at - 1 : at) });
}

/** Time steps a `load_collection` node reads: the dataset's extent, within the node's temporal extent. */
function stepsOf(node: Record<string, unknown>, datasets: Map<string, Dataset>): number {
  const args = argumentsOf(node);
  const dataset = typeof args.id === 'string' ? datasets.get(args.id) : undefined;
  const type = dataset?.spec.periodType;
  const extent = dataset?.status?.extent?.temporal;
  if (!type || !extent?.start || !extent.end) return 0;
  const [from, to] = Array.isArray(args.temporal_extent) ? args.temporal_extent : [];
  // Native periods of one type sort as text.
  const [first, last] = [periodOf(type, from, false), periodOf(type, to, true)];
  const start = first !== undefined && first > extent.start ? first : extent.start;
  const end = last !== undefined && last < extent.end ? last : extent.end;
  if (end < start) return 0;
  try {
    return periodRange(type, start, end).length;
  } catch {
    return 0;
  }
}

/** The parts of a job's attempt, or undefined when one worker runs it. */
export function jobParts(
  process: Record<string, unknown>,
  resources: KubeObject[],
  options: SplitOptions | undefined,
): { count: number; parallelism: number } | undefined {
  if (!options || options.periodsPerPart < 1 || options.maxParts < 2 || options.parallelism < 1) return undefined;
  const graph = process.process_graph;
  if (!savesOneZarr(graph)) return undefined;
  const datasets = new Map(
    resources.filter((r) => r.kind === 'Dataset').map((r) => [r.metadata.name, r as unknown as Dataset]),
  );
  const loads = nodesOf(graph).filter((n) => n.process_id === 'load_collection');
  const steps = Math.max(0, ...loads.map((n) => stepsOf(n, datasets)));
  const count = Math.min(options.maxParts, Math.ceil(steps / options.periodsPerPart));
  return count < 2 ? undefined : { count, parallelism: Math.min(options.parallelism, count) };
}
