/**
 * Float32 chunks in shared WebAssembly memories, a memory per chunk, so that a kernel on a worker thread reads a
 * chunk where it lies (importing its memory) instead of copying it into its own: an in-memory cube's chunks
 * (`cube/memory.ts`), which zonal statistics read (`run-sums.ts`). V8 reserves address space for each memory
 * (room for about 16,000 at once on a 64-bit machine) and rounds it up to 64 KiB pages, so chunks too small for
 * a kernel to gain by, chunks past 2 GiB (the kernels' addresses are 32-bit), and every chunk once no memory can
 * be had, are plain SharedArrayBuffers: the kernels' callers fall back to their JavaScript loops.
 */
import { PAGE_BYTES, WebAssemblyApi, type WasmMemory } from './api.ts';

/** Chunks smaller than this are not worth a memory of their own. */
const SMALLEST_BYTES = 4 * PAGE_BYTES;
const LARGEST_BYTES = 2 ** 31;

const memories = new WeakMap<ArrayBufferLike, WasmMemory>();

/** `length` zeros in a shared WebAssembly memory of their own, or undefined where that is not to be. */
export function float32InSharedMemory(length: number): Float32Array | undefined {
  const bytes = length * 4;
  if (bytes < SMALLEST_BYTES || bytes > LARGEST_BYTES) return undefined;
  const pages = Math.ceil(bytes / PAGE_BYTES);
  let memory: WasmMemory;
  try {
    memory = new WebAssemblyApi.Memory({ initial: pages, maximum: pages, shared: true });
  } catch (err) {
    // Out of address space for memories: the chunk is an ordinary one.
    if (err instanceof RangeError) return undefined;
    throw err;
  }
  memories.set(memory.buffer, memory);
  return new Float32Array(memory.buffer, 0, length);
}

/** The shared WebAssembly memory `values` lie in, if they were allocated in one here. */
export function sharedMemoryOf(values: ArrayBufferView): WasmMemory | undefined {
  return memories.get(values.buffer);
}
