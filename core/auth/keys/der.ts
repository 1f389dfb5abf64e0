/**
 * A minimal DER reader: just what the keystore formats need (PKCS#12 and the key entries of JKS). Definite
 * lengths only; BER's indefinite lengths, which neither openssl nor keytool writes, are refused with a message.
 */
export class DerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DerError';
  }
}

export const TAG = {
  INTEGER: 0x02,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  SEQUENCE: 0x30,
  SET: 0x31,
  BMP_STRING: 0x1e,
} as const;

export interface DerNode {
  /** The identifier octet: class, constructed bit and tag number (low tag numbers only). */
  tag: number;
  /** The content octets. */
  content: Buffer;
  /** The whole encoding, identifier and length included. */
  raw: Buffer;
}

/** Reads the one element that starts at `offset`. */
export function readNode(buffer: Buffer, offset = 0): DerNode {
  if (offset + 2 > buffer.length) throw new DerError('truncated DER element');
  const tag = buffer[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError('high tag numbers are not supported');
  let length = buffer[offset + 1]!;
  let header = 2;
  if (length === 0x80) throw new DerError('indefinite lengths (BER) are not supported');
  if (length > 0x80) {
    const bytes = length & 0x7f;
    if (bytes > 4 || offset + 2 + bytes > buffer.length) throw new DerError('invalid DER length');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + buffer[offset + 2 + i]!;
    header += bytes;
  }
  const end = offset + header + length;
  if (end > buffer.length) throw new DerError('DER element runs past the end of its container');
  return { tag, content: buffer.subarray(offset + header, end), raw: buffer.subarray(offset, end) };
}

/** Parses a buffer that holds exactly one element. */
export function parseDer(buffer: Buffer): DerNode {
  const node = readNode(buffer);
  if (node.raw.length !== buffer.length) throw new DerError('trailing bytes after the DER element');
  return node;
}

/** The elements inside a constructed element (SEQUENCE, SET, explicit tags). */
export function childrenOf(node: DerNode): DerNode[] {
  if ((node.tag & 0x20) === 0) throw new DerError(`element with tag 0x${node.tag.toString(16)} is not constructed`);
  const children: DerNode[] = [];
  for (let offset = 0; offset < node.content.length;) {
    const child = readNode(node.content, offset);
    children.push(child);
    offset += child.raw.length;
  }
  return children;
}

export function expectTag(node: DerNode | undefined, tag: number, what: string): DerNode {
  if (!node || node.tag !== tag) throw new DerError(`${what}: expected tag 0x${tag.toString(16)}`);
  return node;
}

/** The children of a SEQUENCE, checked to be one. */
export function sequence(node: DerNode | undefined, what: string): DerNode[] {
  return childrenOf(expectTag(node, TAG.SEQUENCE, what));
}

/** Dotted form of an OBJECT IDENTIFIER. */
export function oidOf(node: DerNode | undefined, what = 'object identifier'): string {
  const bytes = expectTag(node, TAG.OID, what).content;
  if (bytes.length === 0) throw new DerError(`${what}: empty`);
  const arcs: number[] = [];
  let value = 0;
  for (const byte of bytes) {
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      arcs.push(value);
      value = 0;
    }
  }
  const first = arcs.shift()!;
  const head = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80];
  return [...head, ...arcs].join('.');
}

/** A non-negative INTEGER small enough for a JavaScript number (iteration counts, versions, key lengths). */
export function integerOf(node: DerNode | undefined, what = 'integer'): number {
  const bytes = expectTag(node, TAG.INTEGER, what).content;
  if (bytes.length === 0 || bytes.length > 6 || (bytes[0]! & 0x80) !== 0) throw new DerError(`${what}: out of range`);
  return bytes.reduce((acc, byte) => acc * 256 + byte, 0);
}

export function octetsOf(node: DerNode | undefined, what = 'octet string'): Buffer {
  return expectTag(node, TAG.OCTET_STRING, what).content;
}

/** The one element inside a context-specific explicit tag `[n]`. */
export function explicit(node: DerNode | undefined, n: number, what: string): DerNode {
  const wrapper = expectTag(node, 0xa0 + n, what);
  const [inner] = childrenOf(wrapper);
  if (!inner) throw new DerError(`${what}: empty explicit tag`);
  return inner;
}

/** A BMPString (UTF-16BE), as PKCS#12 friendly names are. */
export function bmpStringOf(node: DerNode | undefined, what = 'BMPString'): string {
  const bytes = expectTag(node, TAG.BMP_STRING, what).content;
  let text = '';
  for (let i = 0; i + 1 < bytes.length; i += 2) text += String.fromCharCode(bytes.readUInt16BE(i));
  return text;
}
