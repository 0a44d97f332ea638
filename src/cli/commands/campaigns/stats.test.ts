import { afterEach, describe, expect, it } from "vitest";
import {
  completedCampaign,
  draftCampaign,
  envelope,
  failedCampaign,
  finalStats,
  runningCampaign,
  runningStats,
  scheduledCampaign,
  stubRequest,
  workspaceId,
} from "../../../../test/fixtures/campaigns.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi, replyAfterCtrlC } from "../../../../test/helpers/mock-api.js";

const path = `/api/v1/workspaces/${workspaceId}/campaigns/${draftCampaign.id}`;
const zeroStats = {
  ...runningStats,
  audience_total: 0,
  skipped_no_consent: 0,
  skipped_opted_out: 0,
  queued: 0,
  sent: 0,
  delivered: 0,
  read: 0,
  failed: 0,
  delivery_rate: 0,
  failures: [],
};

describe("reseller campaigns stats", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: workspaceId, NO_COLOR: "1" });

  /** One poll: the campaign and its stats. */
  function stubPoll(campaign: unknown, stats: unknown) {
    stubRequest(api, "GET", path, envelope(campaign));
    stubRequest(api, "GET", `${path}/stats`, envelope(stats));
  }

  it("shows the funnel with rates, failures by reason and skipped at a terminal", async () => {
    stubPoll(completedCampaign, finalStats);
    const run = await runCli(["campaigns", "stats", draftCampaign.id], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toBe("Spring launch cmp_01spring · completed");
    expect(lines[1]).toMatch(/^ {2}Audience\s+6 {2}4 with consent$/);
    expect(lines[2]).toMatch(/^ {2}Sent\s+3 {2}█{15}░{5}\s+75% of recipients with consent$/);
    expect(lines[3]).toMatch(/^ {2}Delivered\s+3 .*\s100% of sent$/);
    expect(lines[4]).toMatch(/^ {2}Read\s+2 .*\s66\.7% of delivered$/);
    expect(lines[5]).toMatch(/^ {2}Failed\s+1 {2}undeliverable 1$/);
    expect(lines[6]).toMatch(/^ {2}Skipped\s+2 {2}1 not_set, 1 opted_out$/);
    expect(run.stdout).not.toContain("Queued");
  });

  it("prints key<TAB>value piped (status first) and the service's stats with --json", async () => {
    stubPoll(runningCampaign, runningStats);
    const piped = await runCli(["campaigns", "stats", draftCampaign.id], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(piped.stdout).toBe(
      [
        "status\trunning",
        "audience_total\t6",
        "skipped_no_consent\t1",
        "skipped_opted_out\t1",
        "queued\t1",
        "sent\t2",
        "delivered\t1",
        "read\t0",
        "failed\t1",
        "cancelled\t0",
        "delivery_rate\t0.5",
        "read_rate\t0",
        "failures\tundeliverable=1",
        "updated_at\t2026-11-22T09:31:30Z",
        "",
      ].join("\n"),
    );
    stubPoll(runningCampaign, runningStats);
    const json = await runCli(["campaigns", "stats", draftCampaign.id, "--json"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(JSON.parse(json.stdout)).toEqual(runningStats);
  });

  it("prints the campaign's id with --quiet, as every command that shows one resource does", async () => {
    stubPoll(runningCampaign, runningStats);
    const quiet = await runCli(["campaigns", "stats", draftCampaign.id, "-q"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(quiet.stdout).toBe(`${runningCampaign.id}\n`);
  });

  it("shows the recipients a cancel left unsent, at a terminal and piped", async () => {
    const cancelled = { ...runningCampaign, status: "cancelled" };
    const stats = { ...runningStats, queued: 0, cancelled: 1 };
    stubPoll(cancelled, stats);
    const run = await runCli(["campaigns", "stats", draftCampaign.id], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.stdout).toMatch(/^ {2}Cancelled\s+1 {2}never sent$/m);
    stubPoll(cancelled, stats);
    const piped = await runCli(["campaigns", "stats", draftCampaign.id], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(piped.stdout).toContain("\ncancelled\t1\n");
  });

  describe("--watch", () => {
    it("polls until the campaign completes and prints the final stats once, piped", async () => {
      stubPoll(scheduledCampaign, zeroStats);
      stubPoll(runningCampaign, runningStats);
      stubPoll(completedCampaign, finalStats);
      stubPoll(completedCampaign, finalStats); // no new report: settled
      const run = await runCli(["campaigns", "stats", draftCampaign.id, "--watch", "--json"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual(finalStats);
      expect(run.stderr).toBe("");
    });

    it("redraws in place on stderr at a terminal, then prints the final funnel on stdout", async () => {
      stubPoll(runningCampaign, runningStats);
      stubPoll(runningCampaign, runningStats);
      stubPoll(completedCampaign, finalStats);
      stubPoll(completedCampaign, finalStats);
      const run = await runCli(["campaigns", "stats", draftCampaign.id, "--watch"], {
        tty: true,
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(0);
      // Two frames while sending, one while reports come in, each drawn over the last, then erased.
      expect(run.stderr.match(/Spring launch cmp_01spring · running/g)).toHaveLength(2);
      expect(run.stderr).toContain("completed; waiting for delivery and read reports…");
      const redraw = new RegExp(`${"\x1b"}\\[\\d+A\r${"\x1b"}\\[J`);
      expect(run.stderr.split(redraw)).toHaveLength(4);
      expect(run.stderr).toContain("sending… every 2 s");
      expect(run.stderr).toContain(
        "Campaign cmp_01spring (Spring launch) completed: 3 sent, 3 delivered, 2 read, 1 failed, 2 skipped.",
      );
      expect(run.stdout).toMatch(/^Spring launch cmp_01spring · completed\n/);
      expect(run.stdout).not.toContain("\x1b");
    });

    it("keeps watching after `completed` until the delivery and read reports settle", async () => {
      const justSent = { ...finalStats, delivered: 0, read: 0, delivery_rate: 0, read_rate: 0 };
      const delivered = { ...finalStats, read: 0, read_rate: 0 };
      stubPoll(runningCampaign, runningStats);
      stubPoll(completedCampaign, justSent);
      stubPoll(completedCampaign, delivered);
      stubPoll(completedCampaign, finalStats);
      stubPoll(completedCampaign, finalStats);
      const run = await runCli(["campaigns", "stats", draftCampaign.id, "--watch", "--json"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ delivered: 3, read: 2 });
    });

    it("stops at once when every message has been read", async () => {
      const allRead = { ...finalStats, read: finalStats.sent };
      stubPoll(completedCampaign, allRead);
      const run = await runCli(["campaigns", "stats", draftCampaign.id, "--watch", "--json"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ read: finalStats.sent });
    });

    it("exits 5 with the failure reason when the campaign fails", async () => {
      stubPoll(runningCampaign, runningStats);
      stubPoll(failedCampaign, runningStats);
      const run = await runCli(["campaigns", "stats", draftCampaign.id, "--watch"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(5);
      expect(run.stdout).toContain("status\tfailed\n");
      expect(run.stderr).toContain("failed: workspace_suspended");
    });

    it("stops watching on Ctrl-C with exit 130, saying the campaign goes on", async () => {
      stubPoll(runningCampaign, runningStats);
      stubRequest(api, "GET", path, envelope(runningCampaign));
      // Ctrl-C between two refreshes.
      api.pool
        .intercept({ path: `${path}/stats`, method: "GET" })
        .reply(replyAfterCtrlC(envelope(runningStats)));
      const run = await runCli(["campaigns", "stats", draftCampaign.id, "--watch"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(130);
      expect(run.stderr).toContain("Stopped watching campaign");
      expect(run.stderr).toContain("it goes on in the service");
      expect(process.listenerCount("SIGINT")).toBe(0);
    });

    it("stops watching on Ctrl-C even while the service does not answer", async () => {
      stubPoll(runningCampaign, runningStats);
      // The next refresh hangs: the service is stuck.
      api.pool
        .intercept({ path, method: "GET" })
        // Ctrl-C while the request hangs.
        .reply(replyAfterCtrlC(envelope(runningCampaign), 200, 100))
        .delay(30_000);
      api.pool
        .intercept({ path: `${path}/stats`, method: "GET" })
        .reply(200, envelope(runningStats), { headers: jsonHeaders })
        .delay(30_000);
      const started = Date.now();
      const run = await runCli(["campaigns", "stats", draftCampaign.id, "--watch"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(130);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(run.stderr).toContain(`-w ${workspaceId} --watch`);
    });

    it("exits 5 when the campaign is paused, which ends nothing, saying how to resume it", async () => {
      stubPoll(runningCampaign, runningStats);
      stubPoll({ ...runningCampaign, status: "paused" }, runningStats);
      const run = await runCli(["campaigns", "stats", draftCampaign.id, "--watch", "--json"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(5);
      expect(JSON.parse(run.stdout).error.error_code).toBe("campaign_paused");
      expect(run.stderr).toContain(`is paused (${runningStats.sent} sent,`);
      expect(run.stderr).toContain(
        `\`reseller campaigns resume ${draftCampaign.id} -w ${workspaceId}\``,
      );
    });

    it("exits 5 when the campaign is cancelled, counting the recipients never messaged", async () => {
      const cancelled = { ...runningCampaign, status: "cancelled" };
      const stats = { ...runningStats, queued: 0, cancelled: 170 };
      stubPoll(runningCampaign, runningStats);
      stubPoll(cancelled, stats);
      stubPoll(cancelled, stats); // no new report: settled
      const run = await runCli(["campaigns", "stats", draftCampaign.id, "--watch"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(5);
      expect(run.stdout).toContain("status\tcancelled\n");
      expect(run.stderr).toMatch(/was cancelled: .*, 170 cancelled\./);
    });

    it("exits 5 at once for a draft, which would never end", async () => {
      stubPoll(draftCampaign, zeroStats);
      const run = await runCli(["campaigns", "stats", draftCampaign.id, "--watch"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(5);
      expect(run.stderr).toContain("is a draft: nothing to watch until `reseller campaigns launch");
    });
  });
});
