import { z } from 'zod';

export const stacDocumentSchema = z
  .record(z.string(), z.unknown())
  .meta({ id: 'StacDocument', description: 'A STAC Catalog or Collection (https://stacspec.org).' });
