import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflater } from './inflate.ts';

/** 64 KiB that compress unevenly: a ramp, then noise. */
const plain = Uint8Array.from({ length: 65536 }, (_, i) => (i < 32768 ? i % 251 : (i * 2654435761) >>> 24));
const stream = deflateSync(plain);

describe('inflater', () => {
  it('inflates a whole stream into a buffer large enough', () => {
    const out = new Uint8Array(plain.length + 100);
    expect(inflater.inflate(stream, out)).toBe(plain.length);
    expect(out.subarray(0, plain.length)).toEqual(plain);
  });

  it('stops where the output buffer ends', () => {
    const out = new Uint8Array(1000);
    expect(inflater.inflate(stream, out)).toBe(1000);
    expect(out).toEqual(plain.subarray(0, 1000));
  });

  it('takes a stream cut short for what it holds', () => {
    const out = new Uint8Array(plain.length);
    const written = inflater.inflate(stream.subarray(0, stream.length / 2), out);
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(plain.length);
    expect(out.subarray(0, written)).toEqual(plain.subarray(0, written));
  });

  it('throws on a corrupt stream, then inflates the next one', () => {
    const corrupt = Uint8Array.from(stream);
    corrupt[0] ^= 0xff;
    const out = new Uint8Array(plain.length);
    expect(() => inflater.inflate(corrupt, out)).toThrow(/header/);
    expect(inflater.inflate(stream, out)).toBe(plain.length);
    expect(out).toEqual(plain);
  });
});
