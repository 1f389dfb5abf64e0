import { ApiError } from './errors.ts';

/** One requirement of a Kubernetes label selector. */
export type Requirement =
  { key: string; op: 'in' | 'notin'; values: string[] } | { key: string; op: 'exists' | '!exists' };

export type LabelSelector = Requirement[];

const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

function invalid(selector: string, why: string): ApiError {
  return new ApiError('BadRequest', `unable to parse label selector "${selector}": ${why}`);
}

/** Splits at commas that are not inside a value set: `a in (x,y),b` -> [`a in (x,y)`, `b`]. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(current);
      current = '';
    } else current += ch;
  }
  terms.push(current);
  return terms.map((t) => t.trim());
}

function checkKey(selector: string, key: string): string {
  if (!KEY.test(key)) throw invalid(selector, `invalid label key "${key}"`);
  return key;
}

function checkValue(selector: string, value: string): string {
  if (value.length > 63 || !VALUE.test(value)) throw invalid(selector, `invalid label value "${value}"`);
  return value;
}

/** Parses the selector syntax of `kubectl -l`: `=`, `==`, `!=`, `in`, `notin`, `key`, `!key`. */
export function parseLabelSelector(selector: string | undefined): LabelSelector {
  if (!selector || selector.trim() === '') return [];
  return splitTerms(selector).map((term): Requirement => {
    if (term === '') throw invalid(selector, 'empty requirement');
    const set = /^(\S+)\s+(in|notin)\s+\((.*)\)$/.exec(term);
    if (set) {
      const values = set[3]!.split(',').map((v) => checkValue(selector, v.trim()));
      return { key: checkKey(selector, set[1]!), op: set[2] as 'in' | 'notin', values };
    }
    const cmp = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (cmp) {
      const op = cmp[2] === '!=' ? 'notin' : 'in';
      return { key: checkKey(selector, cmp[1]!), op, values: [checkValue(selector, cmp[3]!)] };
    }
    if (term.startsWith('!')) return { key: checkKey(selector, term.slice(1).trim()), op: '!exists' };
    return { key: checkKey(selector, term), op: 'exists' };
  });
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  return selector.every((r) => {
    const value = labels?.[r.key];
    switch (r.op) {
      case 'exists':
        return value !== undefined;
      case '!exists':
        return value === undefined;
      case 'in':
        return value !== undefined && r.values.includes(value);
      case 'notin':
        return value === undefined || !r.values.includes(value);
    }
  });
}
