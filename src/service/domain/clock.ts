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

// The domain reads the time and writes it in one import: the form itself is the contract's.
export { isoSeconds } from "../../contract/timestamps.js";
