/**
 * A run of failures of the same recurring work (the job runner's polls and heartbeats while the
 * database does not answer): reported when it begins and once a minute while it lasts, and its
 * end with how many failed. A poll every 200 ms would otherwise log five stacks a second.
 */
export class FailureRun {
  private failures = 0;
  private reportedAt = 0;

  constructor(
    private readonly report: (error: unknown) => void,
    private readonly ended: (failures: number) => void,
    private readonly everyMs = 60_000,
  ) {}

  /** One more failure: reported if it is the first of the run or a minute has passed. */
  failed(error: unknown): void {
    this.failures += 1;
    const now = performance.now();
    if (this.failures === 1 || now - this.reportedAt >= this.everyMs) {
      this.reportedAt = now;
      this.report(error);
    }
  }

  /** The work succeeded: ends the run, if one was under way. */
  succeeded(): void {
    if (this.failures === 0) return;
    const failures = this.failures;
    this.failures = 0;
    this.ended(failures);
  }
}

/** The logger a logged run writes to (pino's, as fastify's app.log is). */
interface RunLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/**
 * A FailureRun written to the log: `began` at level warn with the error (again each minute it
 * lasts), `ended` at level info with how many failed.
 */
export function loggedFailureRun(log: RunLog, began: string, ended: string): FailureRun {
  return new FailureRun(
    (error) => log.warn({ err: error }, `${began} (reported again each minute it lasts)`),
    (failures) => log.info({ failures }, ended),
  );
}
