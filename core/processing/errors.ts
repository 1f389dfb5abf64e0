/**
 * The one error of the processing engine. Every refusal of a graph or of a value carries a `code` from one union:
 * openEO's API codes (`../shared/openeo-api/errors.json`, with their HTTP status), the exceptions the official
 * process descriptions name (`exceptions` of each process, all client errors), and the few limits of Stratus's
 * own. The message names the node whose evaluation failed, so a client can find it in its graph. The API server's
 * error catalogue (`api-server/errors.ts`) takes these codes from here and answers each in openEO's envelope;
 * `docs/errors.md` lists every code (a test keeps the two in step).
 */

/** openEO API error codes the engine raises, with the HTTP status errors.json gives them. */
export const API_CODES = {
  ProcessInvalid: 400,
  ProcessGraphMissing: 400,
  ProcessGraphInvalid: 400,
  ProcessGraphComplexity: 400,
  ProcessUnsupported: 400,
  ProcessParameterUnsupported: 400,
  ProcessParameterInvalid: 400,
  ProcessParameterRequired: 400,
  ProcessGraphNotFound: 404,
  PredefinedProcessExists: 400,
  CollectionNotFound: 404,
  FeatureUnsupported: 501,
} as const;

/**
 * Codes that the openEO API text uses without listing them in errors.json: `ProcessParameterMissing` is what a
 * `from_parameter` reference to an undefined parameter raises ("Process graph parameters" in openapi.yaml).
 * `FeatureCollectionNotFound` is Stratus's own, for `load_features`.
 */
export const GRAPH_CODES = {
  ProcessParameterMissing: 400,
  FeatureCollectionNotFound: 404,
} as const;

/** Exceptions named by the official descriptions of the processes the engine implements; all 400. */
export const PROCESS_EXCEPTIONS = [
  'ArrayElementNotAvailable',
  'ArrayElementParameterConflict',
  'ArrayElementParameterMissing',
  'ArrayLabelConflict',
  'ArrayNotLabeled',
  'AscendingProbabilitiesRequired',
  'BandFilterParameterMissing',
  'DataCubeEmpty',
  'DimensionExists',
  'DimensionLabelCountMismatch',
  'DimensionMismatch',
  'DimensionMissing',
  'DimensionNotAvailable',
  'DistinctDimensionLabelsRequired',
  'DivisionByZero',
  'FormatUnsuitable',
  'IncompatibleDataCubes',
  'IncompatibleGeometryTypes',
  'KernelDimensionsUneven',
  'LabelExists',
  'LabelMismatch',
  'LabelNotAvailable',
  'LabelsNotEnumerated',
  'MinMaxSwapped',
  // Named by `multiply`'s description; the engine answers a missing multiplicand with ProcessParameterRequired.
  'MultiplicandMissing',
  'NoDataAvailable',
  'OverlapResolverMissing',
  'QuantilesParameterConflict',
  'QuantilesParameterMissing',
  'TargetDimensionExists',
  'TemporalExtentEmpty',
  'TooManyDimensions',
] as const;

export type ApiCode = keyof typeof API_CODES | keyof typeof GRAPH_CODES;
export type ProcessException = (typeof PROCESS_EXCEPTIONS)[number];
export type ProcessingErrorCode = ApiCode | ProcessException;

/** The HTTP status of every code, one table. */
export const PROCESSING_ERROR_STATUS: Readonly<Record<ProcessingErrorCode, number>> = {
  ...API_CODES,
  ...GRAPH_CODES,
  ...Object.fromEntries(PROCESS_EXCEPTIONS.map((code) => [code, 400])),
} as Record<ProcessingErrorCode, number>;

export class ProcessingError extends Error {
  readonly code: ProcessingErrorCode;
  readonly status: number;
  /** The node whose evaluation failed, when known (`parent/child` for nodes of callbacks). */
  readonly node: string | undefined;

  constructor(code: ProcessingErrorCode, message: string, options: { node?: string; cause?: unknown } = {}) {
    super(options.node === undefined ? message : `${message} (node '${options.node}')`, { cause: options.cause });
    this.name = 'ProcessingError';
    this.code = code;
    this.status = PROCESSING_ERROR_STATUS[code];
    this.node = options.node;
  }

  /** The same error, located at `node` (kept when a deeper node is already named). */
  at(node: string): ProcessingError {
    if (this.node !== undefined) return this;
    const located = new ProcessingError(this.code, this.message, { node, cause: this.cause });
    return located;
  }
}

export function isProcessingError(value: unknown): value is ProcessingError {
  return value instanceof ProcessingError;
}

/** Shorthand for the most frequent refusal: an argument that does not fit its parameter. */
export function invalidArgument(process: string, parameter: string, reason: string): ProcessingError {
  return new ProcessingError(
    'ProcessParameterInvalid',
    `The value passed for parameter '${parameter}' in process '${process}' is invalid: ${reason}`,
  );
}
