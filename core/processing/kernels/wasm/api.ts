/**
 * The part of the WebAssembly JS API the kernels use, typed (neither the es2024 library nor Node's types declare
 * it), and what every kernel module shares: compiling a module once from its base64 bytes, and growing a memory.
 */

export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports?: Record<string, Record<string, unknown>>) => { exports: unknown };
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
}

export const WebAssemblyApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

export const PAGE_BYTES = 65_536;

/** A kernel module, compiled on its first use. */
export function kernelModule(base64: string): () => object {
  let compiled: object | undefined;
  return () => (compiled ??= new WebAssemblyApi.Module(Buffer.from(base64, 'base64')));
}

/** Grows `memory` to at least `bytes`. */
export function reserveBytes(memory: WasmMemory, bytes: number): void {
  const size = memory.buffer.byteLength;
  if (size < bytes) memory.grow(Math.ceil((bytes - size) / PAGE_BYTES));
}
