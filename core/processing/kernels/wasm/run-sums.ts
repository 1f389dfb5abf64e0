/**
 * The run-sums kernel (run-sums.wat): the sums and NaN counts of runs of pixels in every plane of a float32 chunk
 * that lies in a shared WebAssembly memory (`shared-memory.ts`), four planes an instruction, read where the chunk
 * lies. Each call instantiates the kernel over the chunk's memory and this thread's memory for the plane offsets,
 * the runs and the results, which is kept from call to call (its pages are not faulted in afresh for every
 * chunk), and which the JavaScript loop of zonal statistics puts its results in too (`runSumsRoom`). It grows to
 * `KEPT_BYTES` at most: a call that needs more (a chunk of very many runs) is left to the JavaScript loop, with
 * arrays of its own, so that one large request does not hold memory in every worker for good.
 */
import { kernelModule, reserveBytes, WebAssemblyApi, type WasmMemory } from './api.ts';
import { MODULE_BASE64 } from './run-sums.wasm.ts';

interface KernelExports {
  sums(
    chunkAt: number,
    planes: number,
    offsets: number,
    runs: number,
    base: number,
    length: number,
    sums: number,
    nans: number,
  ): void;
}

const compiled = kernelModule(MODULE_BASE64);

/**
 * Per plane `b` and run `r`, at `((b >> 2) * runs + r) * 4 + (b & 3)` (groups of four planes, for planes rounded
 * up to four): the sum of the run's values that are not NaN, and its NaNs (their weight, with weights).
 */
export interface RunSums {
  sums: Float64Array;
  nans: Float64Array;
}

/** The results of `planes` × `runs` in `RunSums`: the kernel writes planes rounded up to four. */
const resultCount = (planes: number, runs: number) => Math.ceil(planes / 4) * 4 * runs;

/** The index of plane `b`, run `r` in `RunSums` of `runs` runs. */
export const runSumsAt = (b: number, r: number, runs: number) => ((b >> 2) * runs + r) * 4 + (b & 3);

/** This thread's memory for the kernel's inputs and everyone's results. */
let own: WasmMemory | undefined;
/** The most bytes this thread's memory grows to. */
const KEPT_BYTES = 64 * 2 ** 20;

/**
 * Where the inputs and results of `planes` × `runs` go in this thread's memory, grown to hold them; undefined
 * when they need more than it keeps.
 */
function layout(planes: number, runs: number) {
  const results = resultCount(planes, runs);
  const offsetsAt = 0;
  const baseAt = offsetsAt + planes * 4;
  const lengthAt = baseAt + runs * 4;
  const sumsAt = Math.ceil((lengthAt + runs * 4) / 16) * 16;
  const nansAt = sumsAt + results * 8;
  if (nansAt + results * 8 > KEPT_BYTES) return undefined;
  own ??= new WebAssemblyApi.Memory({ initial: 1 });
  reserveBytes(own, nansAt + results * 8);
  const { buffer } = own;
  const room: RunSums = {
    sums: new Float64Array(buffer, sumsAt, results),
    nans: new Float64Array(buffer, nansAt, results),
  };
  return { memory: own, buffer, offsetsAt, baseAt, lengthAt, sumsAt, nansAt, room };
}

/**
 * Room for the results of `planes` × `runs`, in this thread's memory (valid until the next call here), or arrays
 * of their own when they need more than it keeps.
 */
export function runSumsRoom(planes: number, runs: number): RunSums {
  const at = layout(planes, runs);
  if (at) return at.room;
  const results = resultCount(planes, runs);
  return { sums: new Float64Array(results), nans: new Float64Array(results) };
}

/**
 * The sums of the runs (`base`, `length`: offsets and lengths in a plane) in each plane of `values` (plane `b` at
 * `offsets[b]`), which lie in `memory`, each plane's values added in pixel order, as one loop over the run adds
 * them; in this thread's memory, valid until the next call here. Undefined when they need more than it keeps.
 */
export function float32RunSums(
  memory: WasmMemory,
  values: Float32Array,
  base: Int32Array,
  length: Int32Array,
  offsets: Int32Array,
): RunSums | undefined {
  const planes = offsets.length;
  const runs = base.length;
  const at = layout(planes, runs);
  if (!at) return undefined;
  const imports = { env: { chunk: memory, own: at.memory } };
  const kernel = new WebAssemblyApi.Instance(compiled(), imports).exports as KernelExports;
  new Int32Array(at.buffer, at.offsetsAt, planes).set(offsets);
  new Int32Array(at.buffer, at.baseAt, runs).set(base);
  new Int32Array(at.buffer, at.lengthAt, runs).set(length);
  kernel.sums(values.byteOffset, planes, at.offsetsAt, runs, at.baseAt, at.lengthAt, at.sumsAt, at.nansAt);
  return at.room;
}
