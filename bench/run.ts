// `npm run bench`: runs every benchmark and prints its figures. Benchmarks are not tests:
// they measure and report; the goals are printed beside the figures.
import { campaignThrottled, campaignUnthrottled } from "./campaign-throughput.js";
import { contactsImport } from "./contacts-import.js";
import { contactsQueries } from "./contacts-queries.js";
import { loadMixed } from "./load-mixed.js";
import { plansThroughput } from "./plans-throughput.js";
import { postgresCampaign } from "./postgres-campaign.js";
import { postgresImport } from "./postgres-import.js";
import { postgresInstances } from "./postgres-instances.js";
import { startup } from "./startup.js";

const benchmarks: Record<string, () => Promise<Record<string, unknown>> | Record<string, unknown>> =
  {
    startup: () => startup(),
    plans: () => plansThroughput(),
    "contacts-import": () => contactsImport(),
    "contacts-queries": () => contactsQueries(),
    "campaign-unthrottled": () => campaignUnthrottled(),
    "campaign-throttled": () => campaignThrottled(),
    "load-mixed": () => loadMixed(),
    "postgres-import": () => postgresImport(),
    "postgres-instances": () => postgresInstances(),
    "postgres-campaign": () => postgresCampaign(),
  };

const only = process.argv.slice(2);
for (const [key, run] of Object.entries(benchmarks)) {
  if (only.length > 0 && !only.includes(key)) continue;
  const figures = await run();
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}
