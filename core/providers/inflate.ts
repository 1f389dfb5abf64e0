import { constants, createInflate, type Inflate } from 'node:zlib';

/** The native handle under a zlib stream: its one-call synchronous step. */
interface ZlibHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inputOffset: number,
    inputLength: number,
    output: Uint8Array,
    outputOffset: number,
    outputLength: number,
  ): void;
}
interface InflateInternals {
  _handle: ZlibHandle;
  /** Where the handle leaves the output and input it had room for or did not consume: [avail_out, avail_in]. */
  _writeState: Uint32Array;
}

/**
 * Inflates zlib streams into a caller's buffer, synchronously, through one zlib handle reset between streams.
 * `inflateSync` makes a handle and 16 KiB (or `chunkSize`) output pieces a call, and decodes all the input it is
 * given; COG tiles are inflated by the hundred and most windows want only some rows of a tile, so this keeps one
 * handle and stops where the output buffer ends. Node has no public synchronous call into a kept handle: this uses
 * the handle under `createInflate` as `inflateSync` itself does (node:zlib's `processChunkSync`).
 */
class Inflater {
  #stream: Inflate & InflateInternals = Inflater.#open();

  static #open() {
    const stream = createInflate() as Inflate & InflateInternals;
    // An error is also thrown from `inflate`; the stream's own event would otherwise be unhandled.
    stream.on('error', () => undefined);
    return stream;
  }

  /**
   * Inflates the zlib stream `input` (whole or its first part) into `output` as far as `output` or `input` goes;
   * returns the bytes written. A stream cut short is no error (a synchronous flush takes it for what it holds).
   */
  inflate(input: Uint8Array, output: Uint8Array): number {
    const stream = this.#stream;
    stream.reset();
    stream._handle.writeSync(constants.Z_SYNC_FLUSH, input, 0, input.length, output, 0, output.length);
    // A corrupt stream destroys the zlib stream synchronously with its error; the next tile gets a fresh one.
    if (stream.errored) {
      this.#stream = Inflater.#open();
      throw stream.errored;
    }
    return output.length - stream._writeState[0]!;
  }
}

/** The inflater of this thread (tiles are inflated one at a time, synchronously). */
export const inflater = new Inflater();
