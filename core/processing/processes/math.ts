/** Arithmetic and mathematical functions (openEO category `math`), element-wise with kernel forms. */
import type { Args, ProcessDefinition } from '../process.ts';
import { floorMod, linearScale, literal, roundHalfEven } from '../kernels/scalar.ts';
import { binaryMath, numericKind, unaryMath } from './define.ts';

/** The description says NaN is returned outside the domain its schema bounds give. */
const domain = (definition: ProcessDefinition, parameter = 'x'): ProcessDefinition => ({
  ...definition,
  domainParameters: [parameter],
});

const constantOf = (id: string, value: number): ProcessDefinition => ({
  id,
  run: () => value,
  elementwise: { inputs: [], expression: () => literal(value), resultKind: () => 'number' },
});

export const mathProcesses: ProcessDefinition[] = [
  unaryMath('absolute', Math.abs, (x) => `Math.abs(${x})`),
  unaryMath('sgn', Math.sign, (x) => `Math.sign(${x})`),
  unaryMath('sqrt', Math.sqrt, (x) => `Math.sqrt(${x})`),
  unaryMath('exp', Math.exp, (p) => `Math.exp(${p})`, 'p'),
  domain(unaryMath('ln', Math.log, (x) => `Math.log(${x})`)),
  unaryMath('ceil', Math.ceil, (x) => `Math.ceil(${x})`),
  unaryMath('floor', Math.floor, (x) => `Math.floor(${x})`),
  unaryMath('cos', Math.cos, (x) => `Math.cos(${x})`),
  unaryMath('sin', Math.sin, (x) => `Math.sin(${x})`),
  unaryMath('tan', Math.tan, (x) => `Math.tan(${x})`),
  domain(unaryMath('arccos', Math.acos, (x) => `Math.acos(${x})`)),
  domain(unaryMath('arcsin', Math.asin, (x) => `Math.asin(${x})`)),
  unaryMath('arctan', Math.atan, (x) => `Math.atan(${x})`),
  unaryMath('cosh', Math.cosh, (x) => `Math.cosh(${x})`),
  unaryMath('sinh', Math.sinh, (x) => `Math.sinh(${x})`),
  unaryMath('tanh', Math.tanh, (x) => `Math.tanh(${x})`),
  unaryMath('arcosh', Math.acosh, (x) => `Math.acosh(${x})`),
  unaryMath('arsinh', Math.asinh, (x) => `Math.asinh(${x})`),
  domain(unaryMath('artanh', Math.atanh, (x) => `Math.atanh(${x})`)),
  {
    // The integer part; NaN has none, so it becomes nodata.
    id: 'int',
    run: ({ x }: Args) => (x === null || Number.isNaN(x) ? null : Math.trunc(x as number)),
    elementwise: { inputs: ['x'], expression: ({ x }) => `Math.trunc(${x})`, resultKind: numericKind },
  },
  binaryMath(
    'add',
    (a, b) => a + b,
    (a, b) => `(${a} + ${b})`,
  ),
  binaryMath(
    'subtract',
    (a, b) => a - b,
    (a, b) => `(${a} - ${b})`,
  ),
  binaryMath(
    'multiply',
    (a, b) => a * b,
    (a, b) => `(${a} * ${b})`,
  ),
  // Division by zero gives the infinities (or NaN for 0/0), which the description allows instead of DivisionByZero.
  binaryMath(
    'divide',
    (a, b) => a / b,
    (a, b) => `(${a} / ${b})`,
  ),
  binaryMath('mod', floorMod, (a, b) => `h.floorMod(${a}, ${b})`),
  // In kernels NaN is nodata, which power must pass through even where IEEE's NaN ** 0 is 1.
  binaryMath(
    'power',
    (b, p) => b ** p,
    (b, p) => `((${b} !== ${b} || ${p} !== ${p}) ? NaN : ${b} ** ${p})`,
    ['base', 'p'],
  ),
  binaryMath('arctan2', Math.atan2, (y, x) => `Math.atan2(${y}, ${x})`, ['y', 'x']),
  domain(
    binaryMath(
      'log',
      (x, b) => Math.log(x) / Math.log(b),
      (x, b) => `(Math.log(${x}) / Math.log(${b}))`,
      ['x', 'base'],
    ),
  ),
  {
    id: 'normalized_difference',
    run: ({ x, y }: Args) =>
      x === null || y === null ? null : ((x as number) - (y as number)) / ((x as number) + (y as number)),
    elementwise: {
      inputs: ['x', 'y'],
      expression: ({ x, y }) => `((${x} - ${y}) / (${x} + ${y}))`,
      resultKind: numericKind,
    },
  },
  {
    id: 'round',
    run: ({ x, p }: Args) => (x === null ? null : roundHalfEven(x as number, p as number)),
    elementwise: {
      inputs: ['x'],
      expression: ({ x }, { p }) => `h.roundHalfEven(${x}, ${literal(p)})`,
      resultKind: numericKind,
    },
  },
  {
    id: 'clip',
    run: ({ x, min, max }: Args) => {
      if ((max as number) < (min as number)) throw minMaxSwapped(min as number, max as number);
      return x === null ? null : Math.min(Math.max(x as number, min as number), max as number);
    },
    elementwise: {
      inputs: ['x'],
      expression: ({ x }, { min, max }) => {
        if ((max as number) < (min as number)) throw minMaxSwapped(min as number, max as number);
        return `Math.min(Math.max(${x}, ${literal(min)}), ${literal(max)})`;
      },
      resultKind: numericKind,
    },
  },
  {
    id: 'linear_scale_range',
    run: ({ x, inputMin, inputMax, outputMin, outputMax }: Args) =>
      x === null
        ? null
        : linearScale(x as number, inputMin as number, inputMax as number, outputMin as number, outputMax as number),
    elementwise: {
      inputs: ['x'],
      expression: ({ x }, c) =>
        `h.linearScale(${x}, ${literal(c.inputMin)}, ${literal(c.inputMax)}, ${literal(c.outputMin)}, ${literal(c.outputMax)})`,
      resultKind: numericKind,
    },
  },
  constantOf('e', Math.E),
  constantOf('pi', Math.PI),
  constantOf('nan', NaN),
];

import { ProcessingError } from '../errors.ts';

function minMaxSwapped(min: number, max: number): ProcessingError {
  return new ProcessingError('MinMaxSwapped', `The minimum value (${min}) is greater than the maximum value (${max}).`);
}
