/** The climate index processes of this folder, for the registry; the ETCCDI indices live in `etccdi/`. */
import type { ProcessDefinition } from '../process.ts';
import { degreeDayProcesses } from './degree-days.ts';
import { heatProcesses } from './heat-processes.ts';
import { droughtProcesses } from './spi.ts';

export const climateIndexProcesses: ProcessDefinition[] = [
  ...droughtProcesses,
  ...heatProcesses,
  ...degreeDayProcesses,
];
