import jsonPatch from 'fast-json-patch';
import { ApiError } from './errors.ts';
import type { KubeObject } from './objects.ts';
import type { Patch } from './port.ts';

type Json = unknown;

/** RFC 7386 JSON merge patch: objects merge recursively, `null` deletes, anything else replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const base: Record<string, Json> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [key, value] of Object.entries(patch as Record<string, Json>)) {
    if (value === null) delete base[key];
    else base[key] = mergePatch(base[key], value);
  }
  return base;
}

/** Applies a merge or JSON patch to a copy of `object`; a failing operation is a 422, as on the API server. */
export function applyPatch<T extends KubeObject>(object: T, patch: Patch): T {
  if (patch.type === 'merge') return mergePatch(structuredClone(object), patch.body) as T;
  try {
    const result = jsonPatch.applyPatch(structuredClone(object), patch.body as jsonPatch.Operation[], true, false);
    return result.newDocument;
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    throw new ApiError('Invalid', `the JSON patch could not be applied: ${message}`);
  }
}
