/** Where the service reads the time, so schedules, trials and review delays are testable. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** How far `clock` is from the system clock, in ms: what a worker thread needs to read its time. */
export function clockOffsetMs(clock: Clock): number {
  return clock === systemClock ? 0 : clock.now().getTime() - Date.now();
}

/** The system clock moved by `offsetMs` (clockOffsetMs of the service's clock, in a worker thread). */
export function offsetClock(offsetMs: number): Clock {
  return offsetMs === 0 ? systemClock : { now: () => new Date(Date.now() + offsetMs) };
}

/** ISO 8601 UTC to the second, the timestamp form of the whole API. */
export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
