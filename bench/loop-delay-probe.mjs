// Preloaded (`node --import`) into a benchmarked `reseller serve`: the main thread's event-loop
// delay, from Node's own histogram, written to $LOOP_DELAY_FILE on SIGUSR2, which also starts a
// new measurement. Outside the service's code, so what it measures is not our own account of it.
import { renameSync, writeFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { isMainThread } from "node:worker_threads";

const file = process.env.LOOP_DELAY_FILE;
// Worker threads inherit `--import`: only the thread that answers requests is measured.
if (file && isMainThread) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  process.on("SIGUSR2", () => {
    const ms = (ns) => Number((ns / 1e6).toFixed(1));
    const figures = {
      max_ms: ms(delay.max),
      p99_ms: ms(delay.percentile(99)),
      mean_ms: ms(delay.mean),
    };
    // Whole or not at all: the reader polls for the file.
    writeFileSync(`${file}.part`, JSON.stringify(figures));
    renameSync(`${file}.part`, file);
    delay.reset();
  });
}
