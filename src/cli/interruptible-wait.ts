/**
 * Ctrl-C while a command waits for work the service goes on doing (an import, a campaign, a
 * review): the wait ends at once and the command returns what it knows, with exit 130, instead
 * of dying by the signal with nothing said (and a progress bar's hidden cursor left behind).
 */
export interface InterruptibleWait {
  /** True once Ctrl-C was pressed. */
  readonly interrupted: boolean;
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

/** Listens for Ctrl-C until disposed, around `sleep` (the context's, so tests keep their clock). */
export function interruptibleWait(sleep: (ms: number) => Promise<void>): InterruptibleWait {
  let interrupted = false;
  let wake: () => void = () => {};
  const woken = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const onSignal = () => {
    interrupted = true;
    wake();
  };
  process.on("SIGINT", onSignal);
  return {
    get interrupted() {
      return interrupted;
    },
    sleep: (ms) => Promise.race([sleep(ms), woken]),
    until: <T>(step: Promise<T>) => {
      // A failure after Ctrl-C has nobody left to hear it: not an unhandled rejection.
      step.catch(() => {});
      return Promise.race([step, woken.then(() => undefined)]);
    },
    dispose: () => {
      process.off("SIGINT", onSignal);
    },
  };
}
