/**
 * The extremes kernel (extremes.wat) over float32 day rows, four cells an instruction: an instance holds its
 * accumulators (a float32 per result, which holds a float32 extreme exactly) and, after them, room for the row
 * being folded, which each fold copies in: a row is read once either way, and the reader's buffer stays its own.
 */
import { kernelModule, reserveBytes, WebAssemblyApi, type WasmMemory } from './api.ts';
import { MODULE_BASE64 } from './extremes.wasm.ts';

interface KernelExports {
  memory: WasmMemory;
  max(acc: number, row: number, cells: number): number;
  min(acc: number, row: number, cells: number): number;
}

/** Bytes of a SIMD lane group: the row starts on such a boundary. */
const ALIGN = 16;

const compiled = kernelModule(MODULE_BASE64);

export class Float32Extremes {
  private readonly kernel: KernelExports;
  private readonly fold: (acc: number, row: number, cells: number) => number;
  private readonly count: number;
  /** Byte offset of the row, after the accumulators. */
  private readonly rowAt: number;
  private memory: Float32Array;

  /** `count` accumulators, each starting at -Infinity (`max`) or Infinity. */
  constructor(count: number, max: boolean) {
    this.kernel = new WebAssemblyApi.Instance(compiled()).exports as unknown as KernelExports;
    this.fold = max ? this.kernel.max : this.kernel.min;
    this.count = count;
    this.rowAt = Math.ceil((count * 4) / ALIGN) * ALIGN;
    this.memory = this.reserve(this.rowAt);
    this.memory.fill(max ? -Infinity : Infinity, 0, count);
  }

  /**
   * Folds `cells` values of `values`, from `from` on, into the accumulators from `at` on; whether any of the values
   * was NaN (left out of the fold).
   */
  day(values: Float32Array, from: number, cells: number, at: number): boolean {
    const memory = this.reserve(this.rowAt + cells * 4);
    memory.set(values.subarray(from, from + cells), this.rowAt / 4);
    return this.fold(at * 4, this.rowAt, cells) === 1;
  }

  /** The accumulators. */
  values(): Float32Array {
    return this.memory.subarray(0, this.count);
  }

  /** The kernel's memory as float32, grown to at least `bytes`. */
  private reserve(bytes: number): Float32Array {
    const { memory } = this.kernel;
    reserveBytes(memory, bytes);
    if (this.memory?.buffer !== memory.buffer) this.memory = new Float32Array(memory.buffer);
    return this.memory;
  }
}
