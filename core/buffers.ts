/**
 * Whether `view` spans exactly its buffer, an ArrayBuffer (not shared): the memory is then the view's own, to keep,
 * transfer to a worker or release without a copy.
 */
export function spansItsBuffer(view: ArrayBufferView): boolean {
  const { buffer, byteOffset, byteLength } = view;
  return buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength;
}

/** The bytes of `view` as an ArrayBuffer of their own: the view's own buffer when it spans it, else a copy. */
export function ownBuffer(view: ArrayBufferView): ArrayBuffer {
  const { buffer, byteOffset, byteLength } = view;
  return spansItsBuffer(view)
    ? (buffer as ArrayBuffer)
    : (buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer);
}
