import type { ParameterSchema } from '../schema/match.ts';

/** A parameter of a process, as openEO describes it. */
export interface ParameterDescription {
  name: string;
  description: string;
  schema: ParameterSchema;
  optional?: boolean;
  default?: unknown;
  deprecated?: boolean;
  experimental?: boolean;
}

/** A process description in openEO's JSON form (the official files and Stratus's own). */
export interface ProcessDescription {
  id: string;
  summary?: string;
  description: string;
  categories?: string[];
  parameters: ParameterDescription[];
  returns: { description?: string; schema: ParameterSchema };
  exceptions?: Record<string, { message: string; description?: string; http?: number }>;
  experimental?: boolean;
  deprecated?: boolean;
  examples?: unknown[];
  links?: unknown[];
  process_graph?: unknown;
  [key: string]: unknown;
}
