import { Cron } from 'croner';

export class ScheduleSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScheduleSpecError';
  }
}

/** The first tick of `cron` in `timezone` strictly after `after`; throws ScheduleSpecError for a bad spec. */
export function nextTick(spec: { cron: string; timezone: string }, after: Date): Date {
  let next: Date | null;
  try {
    next = new Cron(spec.cron, { timezone: spec.timezone, paused: true }).nextRun(after);
  } catch (err) {
    throw new ScheduleSpecError(`cron "${spec.cron}" in time zone "${spec.timezone}": ${(err as Error).message}`);
  }
  if (!next) throw new ScheduleSpecError(`cron "${spec.cron}" never fires again`);
  return next;
}
