import { describe, expect, it } from 'vitest';
import { run } from '../../../test/support/cubes.ts';

describe('date processes at the edges of the calendar', () => {
  it.each([
    ['1e15 days', 1e15, 'day'],
    ['1e15 years', 1e15, 'year'],
    ['1e15 months back', -1e15, 'month'],
    ['1e15 hours', 1e15, 'hour'],
    ['past year 9999', 8000, 'year'],
    ['before year 0000', -2021, 'year'],
  ])('date_shift by %s answers ProcessParameterInvalid, not a malformed date', async (_, value, unit) => {
    await expect(run('date_shift', { date: '2020-01-01T12:00:00Z', value, unit })).rejects.toMatchObject({
      code: 'ProcessParameterInvalid',
      message: expect.stringMatching(/parameter 'value' in process 'date_shift'.*0000 to 9999/),
    });
  });

  it('date_shift reaches the last day RFC 3339 writes', async () => {
    expect(await run('date_shift', { date: '2020-12-31', value: 7979, unit: 'year' })).toBe('9999-12-31');
  });

  it.each([
    ['date_difference', { date1: '2020-01-01', date2: '300000-01-01', unit: 'day' }],
    ['date_shift', { date: '300000-01-01', value: 0, unit: 'day' }],
    ['date_between', { x: '300000-01-01', min: '2020-01-01', max: '2021-01-01' }],
  ])('%s refuses a year no instant can hold instead of computing NaN', async (process, args) => {
    await expect(run(process, args)).rejects.toMatchObject({ code: 'ProcessParameterInvalid' });
  });
});
