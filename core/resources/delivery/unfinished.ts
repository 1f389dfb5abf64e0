import type { Delivery } from './schema.ts';

/** A delivery that may still read its payload: it has not ended (queued, running or retrying). */
export const isUnfinishedDelivery = (delivery: Delivery) =>
  delivery.status?.phase !== 'successful' && delivery.status?.phase !== 'failed';
