/**
 * Typed arrays that one index cube's blocks take in turn. A block's daily series fill most of a run's memory
 * (`MAX_BLOCK_VALUES`), so allocating them afresh for every block costs a page fault per page written and a
 * collection after each block; a block takes its arrays from here and gives them back once its values are out.
 */
type PooledArray = Float64Array | Uint8Array;

interface PooledArrayType<T extends PooledArray> {
  new (length: number): T;
  new (buffer: ArrayBuffer): T;
}

export class BufferPool<T extends PooledArray> {
  private readonly free: T[] = [];
  private readonly type: PooledArrayType<T>;

  constructor(type: PooledArrayType<T>) {
    this.type = type;
  }

  /** An array of `length` elements holding whatever an earlier block left in it. */
  take(length: number): T {
    const at = this.free.findIndex((array) => array.length >= length);
    if (at < 0) return new this.type(length);
    const [array] = this.free.splice(at, 1) as [T];
    return array.length === length ? array : (array.subarray(0, length) as T);
  }

  /** Gives back arrays from `take` that nothing reads any more. */
  give(...arrays: T[]): void {
    for (const array of arrays) this.free.push(new this.type(array.buffer as ArrayBuffer));
  }
}
