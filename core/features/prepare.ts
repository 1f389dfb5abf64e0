import type { Feature } from './geometry.ts';
import { reprojectToStored } from './reproject.ts';
import { declaredCrs, featuresOf, validateFeatures, type ValidationReport } from './validate.ts';

/**
 * A source's GeoJSON FeatureCollection, validated, repaired and reprojected into the stored CRS: what a refresh
 * writes. `sourceCrs` overrides the CRS the document declares (a provider that knows its source's CRS).
 */
export function prepareFeatures(
  document: unknown,
  options: { origin: string; idProperty: string; sourceCrs?: string },
): { features: Feature[]; report: ValidationReport } {
  const { features, report } = validateFeatures(featuresOf(document, options.origin), options.idProperty);
  return { features: reprojectToStored(features, options.sourceCrs ?? declaredCrs(document)), report };
}
