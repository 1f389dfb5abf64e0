/**
 * The JSON Patch (RFC 6902) that switches a tracker changelog (spec 3, DESIGN.md §6): only `/enableChangeLog` may
 * be touched, by `replace` or `add` with a boolean, and `test` compares it. Pure: `parseChangeLogPatch` tells a
 * patch it accepts from one it refuses, with every problem; `applyChangeLogPatch` runs the operations in order on
 * the current value, and a failing `test` fails the whole patch (RFC 6902 §5).
 */

export const CHANGE_LOG_PATH = '/enableChangeLog';
export const CHANGE_LOG_OPS = ['replace', 'add', 'test'] as const;

export interface ChangeLogOperation {
  op: (typeof CHANGE_LOG_OPS)[number];
  value: boolean;
}

export interface PatchProblem {
  message: string;
  /** What the problem is about: `op`, `path`, `value` of an operation, or the body. */
  property: 'op' | 'path' | 'value' | 'body';
}

export type ParsedPatch = { ok: true; operations: ChangeLogOperation[] } | { ok: false; problems: PatchProblem[] };

const describe = (value: unknown) => (value === undefined ? 'missing' : JSON.stringify(value).slice(0, 60));

/** Checks a parsed body: an array of operation objects, each allowed; every problem is reported, not the first. */
export function parseChangeLogPatch(body: unknown): ParsedPatch {
  if (!Array.isArray(body))
    return {
      ok: false,
      problems: [{ property: 'body', message: 'The body must be a JSON Patch: an array of operations (RFC 6902).' }],
    };
  const problems: PatchProblem[] = [];
  const operations: ChangeLogOperation[] = [];
  body.forEach((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push({ property: 'body', message: `Operation ${index} is not an object.` });
      return;
    }
    // Members other than op, path and value are ignored, as RFC 6902 §4 says.
    const { op, path, value } = entry as Record<string, unknown>;
    const before = problems.length;
    if (!CHANGE_LOG_OPS.includes(op as ChangeLogOperation['op']))
      problems.push({
        property: 'op',
        message: `Operation ${index}: op ${describe(op)} is not allowed; only replace, add and test are.`,
      });
    if (path !== CHANGE_LOG_PATH)
      problems.push({
        property: 'path',
        message: `Operation ${index}: path ${describe(path)} may not be changed; only ${CHANGE_LOG_PATH} may.`,
      });
    if (typeof value !== 'boolean')
      problems.push({ property: 'value', message: `Operation ${index}: value ${describe(value)} is not a boolean.` });
    if (problems.length === before) operations.push({ op: op as ChangeLogOperation['op'], value: value as boolean });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, operations };
}

export type AppliedPatch =
  { ok: true; value: boolean } | { ok: false; index: number; expected: boolean; actual: boolean };

/** Runs the operations in order on `current`; the first failing `test` fails the whole patch. */
export function applyChangeLogPatch(current: boolean, operations: readonly ChangeLogOperation[]): AppliedPatch {
  let value = current;
  for (const [index, operation] of operations.entries()) {
    if (operation.op === 'test') {
      if (value !== operation.value) return { ok: false, index, expected: operation.value, actual: value };
    } else value = operation.value;
  }
  return { ok: true, value };
}
