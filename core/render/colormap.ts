/**
 * Colormaps for thumbnails, as evenly spaced RGB anchors interpolated linearly. The anchors sample the
 * well-known matplotlib and ColorBrewer maps of the same names.
 */
const ANCHORS: Record<string, [number, number, number][]> = {
  viridis: [
    [68, 1, 84],
    [71, 44, 122],
    [59, 81, 139],
    [44, 113, 142],
    [33, 144, 141],
    [39, 173, 129],
    [92, 200, 99],
    [170, 220, 50],
    [253, 231, 37],
  ],
  magma: [
    [0, 0, 4],
    [28, 16, 68],
    [79, 18, 123],
    [129, 37, 129],
    [181, 54, 122],
    [229, 80, 100],
    [251, 135, 97],
    [254, 194, 135],
    [252, 253, 191],
  ],
  blues: [
    [247, 251, 255],
    [222, 235, 247],
    [198, 219, 239],
    [158, 202, 225],
    [107, 174, 214],
    [66, 146, 198],
    [33, 113, 181],
    [8, 81, 156],
    [8, 48, 107],
  ],
  ylorrd: [
    [255, 255, 204],
    [255, 237, 160],
    [254, 217, 118],
    [254, 178, 76],
    [253, 141, 60],
    [252, 78, 42],
    [227, 26, 28],
    [189, 0, 38],
    [128, 0, 38],
  ],
};

export const colormapNames = Object.keys(ANCHORS);
export const DEFAULT_COLORMAP = 'viridis';

/** Paints the colour of `t` in [0, 1] (clamped) as an opaque RGBA pixel at `offset` of `rgba`. */
export type ColorRamp = (t: number, rgba: Uint8Array, offset: number) => void;

/**
 * The named colormap (unknown names use the default) resolved once, for painting many pixels: a tile paints
 * 65,536 of them, so the ramp neither looks the map up nor allocates per pixel.
 */
export function colorRamp(name: string): ColorRamp {
  const anchors = ANCHORS[name.toLowerCase()] ?? ANCHORS[DEFAULT_COLORMAP]!;
  const last = anchors.length - 1;
  return (t, rgba, offset) => {
    const x = Math.min(1, Math.max(0, t)) * last;
    const i = Math.min(last - 1, Math.floor(x));
    const f = x - i;
    const [a, b] = [anchors[i]!, anchors[i + 1]!];
    rgba[offset] = Math.round(a[0] + (b[0] - a[0]) * f);
    rgba[offset + 1] = Math.round(a[1] + (b[1] - a[1]) * f);
    rgba[offset + 2] = Math.round(a[2] + (b[2] - a[2]) * f);
    rgba[offset + 3] = 255;
  };
}

/** The colour of `t` in [0, 1] on the named colormap (unknown names use the default). */
export function colorAt(name: string, t: number): [number, number, number] {
  const pixel = new Uint8Array(4);
  colorRamp(name)(t, pixel, 0);
  return [pixel[0]!, pixel[1]!, pixel[2]!];
}
