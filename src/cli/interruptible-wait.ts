/**
 * Ctrl-C while a command waits for work the service goes on doing (an import, a campaign, a
 * review): the wait ends at once and the command returns what it knows, with exit 130, instead
 * of dying by the signal with nothing said (and a progress bar's hidden cursor left behind).
 */
export interface InterruptibleWait {
  /** True once Ctrl-C was pressed. */
  readonly interrupted: boolean;
  /** Aborted by Ctrl-C, for a request or a stream to end with the wait. */
  readonly signal: AbortSignal;
  /** The command's sleep, ended at once by Ctrl-C. */
  sleep(ms: number): Promise<void>;
  /**
   * `step` (a request), or undefined as soon as Ctrl-C is pressed: a service that hangs must not
   * hold the command. The step is left to end unheard (the process exits when the command returns).
   */
  until<T>(step: Promise<T>): Promise<T | undefined>;
  /** Stops listening for Ctrl-C; call it when the wait is over. */
  dispose(): void;
}

/**
 * Listens for Ctrl-C (and any other of `signals`) until disposed, around `sleep` (the context's,
 * so tests keep their clock).
 */
export function interruptibleWait(
  sleep: (ms: number) => Promise<void>,
  signals: readonly NodeJS.Signals[] = ["SIGINT"],
): InterruptibleWait {
  let interrupted = false;
  const abort = new AbortController();
  let wake: () => void = () => {};
  const woken = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const onSignal = () => {
    interrupted = true;
    abort.abort();
    wake();
  };
  for (const name of signals) process.on(name, onSignal);
  return {
    get interrupted() {
      return interrupted;
    },
    signal: abort.signal,
    sleep: (ms) => Promise.race([sleep(ms), woken]),
    until: <T>(step: Promise<T>) => {
      // A failure after Ctrl-C has nobody left to hear it: not an unhandled rejection.
      step.catch(() => {});
      return Promise.race([step, woken.then(() => undefined)]);
    },
    dispose: () => {
      for (const name of signals) process.off(name, onSignal);
    },
  };
}
