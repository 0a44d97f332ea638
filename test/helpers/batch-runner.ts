import { campaignRunHandler } from "../../src/service/jobs/campaign-run-job.js";
import { JobRunner } from "../../src/service/jobs/job-runner.js";
import type { OutboundMessage } from "../../src/service/messaging/message-sender.js";
import { defaultSandboxTiming, sandboxSender } from "../../src/service/sandbox/sandbox-sender.js";
import type { TestApp } from "./test-app.js";
import { unlimitedThroughput } from "./unlimited-throughput.js";

/**
 * A job runner for a test app whose campaign engine sends one recipient per batch through the
 * sandbox and calls `during` while each batch is in flight, so a test can act mid-campaign.
 */
export function batchRunner(
  t: TestApp,
  during: (messages: readonly OutboundMessage[]) => Promise<void>,
): JobRunner {
  const sandbox = sandboxSender({
    db: t.database.db,
    clock: t.clock,
    timing: defaultSandboxTiming,
    scheduleReports: async () => {},
  });
  const run = campaignRunHandler({
    db: t.database.db,
    clock: t.clock,
    throttles: unlimitedThroughput,
    batchSize: 1,
    sender: {
      send: async (messages) => {
        await during(messages);
        return sandbox.send(messages);
      },
    },
  });
  return new JobRunner({ db: t.database.db, clock: t.clock, handlers: { "campaign.run": run } });
}
