/**
 * HDF5 stamps each object header with the time it was written, and h5wasm cannot turn that off (it does not export
 * `H5Pset_obj_track_times`). Its WebAssembly runtime reads the clock through `Date.now`, so holding `Date.now` at the
 * epoch while a file is written makes equal content equal bytes: a rerun, a spliced version and the same cube written
 * whole hash the same. `write` must be synchronous, so that no other code runs while the clock is held.
 */
export function withReproducibleTimes<T>(write: () => T): T {
  const now = Date.now;
  Date.now = () => 0;
  try {
    const result = write();
    if (result instanceof Promise) throw new TypeError('withReproducibleTimes takes a synchronous write');
    return result;
  } finally {
    Date.now = now;
  }
}
