import { describe, expect, it } from 'vitest';
import { headlineTable, TABLE_END, TABLE_START, tableOf, withTable, type MeasuredHeadline } from './headline-table.ts';

const row = (ratios: number[], goal?: number, section = 'token'): MeasuredHeadline => ({
  section,
  figure: 'token endpoint, refresh rate',
  peer: 'node-oidc-provider | Redis',
  ratios,
  goal,
  command: 'node bench/auth-token.ts',
  load: [0.5, 1.25],
  date: '2026-11-28',
});

describe('the table of current figures', () => {
  it('gives the median and range of the ratios, the runs, the load and the date', () => {
    const [, , line] = headlineTable([row([1.4, 0.9, 1.1])], ['token']);
    expect(line).toBe(
      '| token | token endpoint, refresh rate | node-oidc-provider \\| Redis | 1.10x (0.90x–1.40x) | - | 3 | 0.50 / 1.25 | ' +
        '2026-11-28 | `node bench/auth-token.ts` |',
    );
  });

  it('says "not met" with the median when the median is below the goal, and "met" otherwise', () => {
    const [, , below, above] = headlineTable([row([0.8, 0.95, 1.2], 1), row([1, 1.3, 0.7], 1)], ['token']);
    expect(below).toContain('| 1.00x: **not met** (0.95x) |');
    expect(above).toContain('| 1.00x: met |');
  });

  it('replaces the rows of the sections run, keeps the rows of the others and names the sections never measured', () => {
    const before = headlineTable([row([2], undefined, 'store'), row([0.9], 1, 'token')], ['store', 'token', 'tiles']);
    const page = withTable(`# Performance\n\nIntro.\n`, before);
    const after = headlineTable([row([1.5], 1, 'token')], ['store', 'token', 'tiles'], tableOf(page));
    expect(after.slice(2)).toEqual([
      before[2],
      expect.stringMatching(/^\| token \| .* \| 1\.50x \(1\.50x–1\.50x\) \| 1\.00x: met \|/),
      '',
      'Not measured by `make bench` yet: tiles.',
    ]);
    expect(before.at(-1)).toBe('Not measured by `make bench` yet: tiles.');
  });

  it('replaces only what lies between its markers', () => {
    const page = `# Performance\n\nIntro.\n\n${TABLE_START}\nold table\n${TABLE_END}\n\n## Reading the figures\n`;
    expect(withTable(page, ['new table'])).toBe(
      `# Performance\n\nIntro.\n\n${TABLE_START}\nnew table\n${TABLE_END}\n\n## Reading the figures\n`,
    );
  });

  it('puts the table under the title of a page that has none yet', () => {
    expect(withTable('# Performance\n\nIntro.\n', ['table'])).toBe(
      `# Performance\n\n${TABLE_START}\ntable\n${TABLE_END}\n\nIntro.\n`,
    );
  });
});
