// `npm run bench`: runs every benchmark and prints its figures. Benchmarks are not tests:
// they measure and report; the goals are printed beside the figures.
import { plansThroughput } from "./plans-throughput.js";
import { startup } from "./startup.js";

const benchmarks: Record<string, () => Promise<Record<string, unknown>> | Record<string, unknown>> =
  {
    startup: () => startup(),
    plans: () => plansThroughput(),
  };

const only = process.argv.slice(2);
for (const [key, run] of Object.entries(benchmarks)) {
  if (only.length > 0 && !only.includes(key)) continue;
  const figures = await run();
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}
