import { setPriority } from "node:os";

/** The nice value of an import's row checker: below the service's thread, which answers requests. */
const backgroundNice = 10;

/**
 * Lowers the CPU priority of the calling worker thread, so that on a busy machine the kernel runs
 * the service's thread first and requests are answered while an import runs. Only for threads
 * that hold no lock the service waits for (the row checker, not the writer). On Linux a nice
 * value belongs to a thread (setpriority of pid 0 changes the caller's only); elsewhere it would
 * slow the whole process, so this does nothing there. Raising one's nice value needs no privilege.
 */
export function runInBackground(): void {
  if (process.platform !== "linux") return;
  try {
    setPriority(backgroundNice);
  } catch {
    // A sandbox refusing it leaves the thread at the service's priority, as before.
  }
}
