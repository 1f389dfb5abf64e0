import { describe, expect, it } from 'vitest';
import { applyChangeLogPatch, parseChangeLogPatch, type ChangeLogOperation } from './change-log-patch.ts';

const op = (o: string, value: unknown, path = '/enableChangeLog') => ({ op: o, path, value });

describe('the changelog switch patch', () => {
  it('accepts replace, add and test of /enableChangeLog with booleans, ignoring other members, and an empty patch', () => {
    expect(parseChangeLogPatch([op('replace', false), { ...op('add', true), from: '/x' }, op('test', true)])).toEqual({
      ok: true,
      operations: [
        { op: 'replace', value: false },
        { op: 'add', value: true },
        { op: 'test', value: true },
      ],
    });
    expect(parseChangeLogPatch([])).toEqual({ ok: true, operations: [] });
  });

  it('reports every problem of every operation', () => {
    const parsed = parseChangeLogPatch([op('remove', undefined), op('replace', 'yes', '/name'), 'x']);
    expect(parsed.ok ? [] : parsed.problems.map((p) => p.property)).toEqual(['op', 'value', 'path', 'value', 'body']);
    expect(parsed.ok ? [] : parsed.problems[2]!.message).toMatch(/Operation 1: path "\/name" may not be changed/);
    expect(parseChangeLogPatch({ op: 'replace' })).toMatchObject({ ok: false, problems: [{ property: 'body' }] });
  });

  it('applies the operations in order, each test against the value the earlier ones left', () => {
    const ops = (...list: [ChangeLogOperation['op'], boolean][]) => list.map(([o, value]) => ({ op: o, value }));
    expect(applyChangeLogPatch(true, ops(['replace', false], ['add', true], ['replace', false]))).toEqual({
      ok: true,
      value: false,
    });
    expect(applyChangeLogPatch(true, ops(['test', true], ['replace', false], ['test', false]))).toEqual({
      ok: true,
      value: false,
    });
    expect(applyChangeLogPatch(true, ops(['replace', false], ['test', true], ['replace', true]))).toEqual({
      ok: false,
      index: 1,
      expected: true,
      actual: false,
    });
    expect(applyChangeLogPatch(false, [])).toEqual({ ok: true, value: false });
  });
});
