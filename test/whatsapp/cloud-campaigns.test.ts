import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type CampaignEngineDeps,
  defaultSendLanes,
  unknownsToClose,
} from "../../src/service/domain/campaign-engine.js";
import { pruneEvents } from "../../src/service/domain/events.js";
import { campaignRunHandler } from "../../src/service/jobs/campaign-run-job.js";
import { JobRunner } from "../../src/service/jobs/job-runner.js";
import type { MessageSender, SendOutcome } from "../../src/service/messaging/message-sender.js";
import { inboundWebhook, statusWebhook } from "../helpers/fake-graph.js";
import { unlimitedThroughput } from "../helpers/unlimited-throughput.js";
import { type CloudWorld, cloudWorld, phoneNumberId } from "./world.js";

const ada = "+4915112345671";
const bob = "+4915112345672";

describe("campaigns sent through the WhatsApp Cloud API", () => {
  let w: CloudWorld;
  let channelId: string;
  beforeEach(async () => {
    w = await cloudWorld();
    channelId = (await w.connect()).id;
    await w.approvedTemplate();
  });
  afterEach(() => w.close());

  const recipients = (campaignId: string) =>
    w.t.database.db
      .selectFrom("campaign_recipients")
      .selectAll()
      .where("campaign_id", "=", campaignId)
      .orderBy("phone")
      .execute();

  /** A launched campaign to every contact, whose variables come from their name and code. */
  const launched = async (name: string): Promise<{ id: string }> => {
    const draft = await w.post("/campaigns", {
      name,
      channel_id: channelId,
      template_name: "spring_news",
      template_language: "en_US",
      audience: { all: true },
      variable_mapping: { "1": "first_name", "2": "custom.code" },
    });
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    return draft;
  };

  /** A launched campaign to Ada and Bob, whose variables come from their name and code. */
  const launchedToAdaAndBob = async (name: string): Promise<{ id: string }> => {
    await w.contact(ada, { first_name: "Ada", custom_fields: { code: "A-1" } });
    await w.contact(bob, { first_name: "Bob", custom_fields: { code: "B-2" } });
    return launched(name);
  };

  /** As if `instances` instances died holding the campaign's job: its next claim counts one more. */
  const diedHoldingTheJob = (instances: number) =>
    w.t.database.db
      .updateTable("jobs")
      .set({ attempts: instances })
      .where("kind", "=", "campaign.run")
      .execute();

  /** The campaign job's state and its count of claims toward giving up. */
  const campaignJob = async () =>
    (
      await w.t.database.db
        .selectFrom("jobs")
        .select(["state", "attempts"])
        .where("kind", "=", "campaign.run")
        .execute()
    )[0];

  /** A job runner whose campaign sends go to `sender` (a crash or fault staged by the test). */
  const runnerSendingThrough = (
    sender: MessageSender,
    options: Pick<CampaignEngineDeps, "batchSize" | "sendLanes" | "sleep"> = { sendLanes: 1 },
  ) =>
    new JobRunner({
      db: w.t.database.db,
      clock: w.t.clock,
      handlers: {
        "campaign.run": campaignRunHandler({
          db: w.t.database.db,
          clock: w.t.clock,
          throttles: unlimitedThroughput,
          sender,
          ...options,
        }),
      },
    });

  /** Runs the campaign's job until the runner gives it up (five failing tries in a row). */
  const givenUp = async (runner: JobRunner, campaignId: string) => {
    for (let i = 0; i < 5; i++) {
      await runner.runDue();
      w.t.clock.advance(120_000);
    }
    expect(await w.get(`/campaigns/${campaignId}`)).toMatchObject({
      status: "failed",
      failure_reason: "internal_error",
    });
  };

  /**
   * A sender without idempotency keys whose every send takes 2 ms and answers `answer(call)` (the
   * first call is 1); `seen.most` is the most sends it had in flight at once.
   */
  const pacedSender = (answer: (call: number) => SendOutcome) => {
    const seen = { calls: 0, most: 0 };
    let inFlight = 0;
    const sender: MessageSender = {
      exactlyOnce: () => false,
      send: async () => {
        seen.calls += 1;
        const call = seen.calls;
        inFlight += 1;
        seen.most = Math.max(seen.most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight -= 1;
        return [answer(call)];
      },
    };
    return { sender, seen };
  };

  /** Opted-in contacts with every variable the campaign maps, `count` of them. */
  const contacts = async (count: number) => {
    for (let i = 0; i < count; i++) {
      await w.contact(`+49151123${String(45_600 + i)}`, {
        first_name: "Ada",
        custom_fields: { code: "A" },
      });
    }
  };

  it("sends template messages whose components carry the mapped variables and the recipient id", async () => {
    const contact = await w.contact(ada, { first_name: "Ada", custom_fields: { code: "A-1" } });
    const campaign = await w.campaign(channelId);
    const [send] = w.graph.sends();
    expect(send?.path).toBe(`/${phoneNumberId}/messages`);
    expect(send?.body).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "4915112345671",
      type: "template",
      template: {
        name: "spring_news",
        language: { code: "en_US" },
        components: [
          { type: "header", parameters: [{ type: "text", text: "Ada" }] },
          {
            type: "body",
            parameters: [
              { type: "text", text: "Ada" },
              { type: "text", text: "A-1" },
            ],
          },
        ],
      },
      biz_opaque_callback_data: `${campaign.id}:${contact.id}`,
    });
    const [row] = await recipients(campaign.id);
    expect(row).toMatchObject({ state: "sent", provider_message_id: "wamid.FAKE000002" });
    expect(await w.stats(campaign.id)).toMatchObject({ sent: 1, queued: 0 });
  });

  it("keeps up to 16 sends in flight at once, so a channel is not held to one message per round trip", async () => {
    await contacts(40);
    let inFlight = 0;
    let most = 0;
    w.graph.beforeSendAnswer = async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 50));
      inFlight -= 1;
    };
    const campaign = await w.campaign(channelId);
    expect(await w.stats(campaign.id)).toMatchObject({ sent: 40, queued: 0 });
    // How many overlap depends on the database's pace; never more than the lanes.
    expect(most).toBeGreaterThanOrEqual(defaultSendLanes / 2);
    expect(most).toBeLessThanOrEqual(defaultSendLanes);
  });

  it("sends nothing more once the campaign is cancelled mid-batch: the sends in flight finish, those counted cancelled stay cancelled", async () => {
    await contacts(40);
    let cancelled: Record<string, unknown> | undefined;
    let cancelling = false;
    w.graph.beforeSendAnswer = async () => {
      // The first send to arrive cancels; the others in flight with it pass.
      if (cancelling) return;
      cancelling = true;
      const [row] = await w.t.database.db.selectFrom("campaigns").select("id").execute();
      await w.post(`/campaigns/${row?.id}/cancel`, undefined, 200);
      cancelled = await w.stats(row?.id ?? "");
    };
    const campaign = await w.campaign(channelId);
    await w.t.runJobs();
    // The cancel landed while the first sends were on their way: only those were sent.
    const sent = w.graph.sends().length;
    expect(sent).toBeLessThanOrEqual(defaultSendLanes);
    expect(cancelled).toMatchObject({ cancelled: 40 - sent });
    expect(await w.stats(campaign.id)).toMatchObject({ sent, cancelled: 40 - sent, queued: 0 });
  });

  it("sends no further message of a batch once the service begins to stop: the rest stay queued for the next instance", async () => {
    await contacts(40);
    let stopping: Promise<void> | undefined;
    w.graph.beforeSendAnswer = async () => {
      // SIGTERM while the first messages are on their way to Meta.
      stopping ??= w.t.app.jobs.stop();
    };
    const campaign = await w.campaign(channelId);
    await stopping;
    const sent = w.graph.sends().length;
    expect(sent).toBeLessThanOrEqual(defaultSendLanes);
    // The messages on their way were answered and recorded: no outcome_unknown from a clean stop.
    const states = (await recipients(campaign.id)).map((r) => r.state);
    expect(states.filter((state) => state === "sent")).toHaveLength(sent);
    expect(states.filter((state) => state === "queued")).toHaveLength(40 - sent);
  });

  it("moves the funnel forward only: a read before its delivered counts both, repeats count once", async () => {
    await w.contact(ada, { first_name: "Ada", custom_fields: { code: "A-1" } });
    const campaign = await w.campaign(channelId);
    const [row] = await recipients(campaign.id);
    const id = row?.provider_message_id ?? "";
    const status = (s: "sent" | "delivered" | "read") =>
      statusWebhook(phoneNumberId, [{ id, status: s, to: "4915112345671" }]);
    await w.deliver(status("read"));
    await w.deliver(status("delivered"));
    await w.deliver(status("read"));
    await w.deliver(status("sent"));
    expect(await w.stats(campaign.id)).toMatchObject({ sent: 1, delivered: 1, read: 1 });
    expect((await recipients(campaign.id))[0]?.state).toBe("read");
  });

  it("applies a status only to messages of the number the webhook names", async () => {
    await w.contact(ada, { first_name: "Ada", custom_fields: { code: "A-1" } });
    const campaign = await w.campaign(channelId);
    const id = (await recipients(campaign.id))[0]?.provider_message_id ?? "";
    // Another client's number on the same app: its webhook cannot move this client's message.
    const other = await w.t.createWorkspace({ name: "Other" });
    const [channel] = await w.t.database.db
      .selectFrom("channels")
      .selectAll()
      .where("id", "=", channelId)
      .execute();
    await w.t.database.db
      .insertInto("channels")
      .values({
        ...(channel as NonNullable<typeof channel>),
        id: "ch_other",
        workspace_id: other,
        phone: "+4915112349999",
        phone_number_id: "999999",
      })
      .execute();
    await w.deliver(statusWebhook("999999", [{ id, status: "read", to: "4915112345671" }]));
    expect((await recipients(campaign.id))[0]?.state).toBe("sent");
    await w.deliver(
      statusWebhook(phoneNumberId, [{ id, status: "delivered", to: "4915112345671" }]),
    );
    expect((await recipients(campaign.id))[0]?.state).toBe("delivered");
    // The status ignored under the other number still counts under its own.
    await w.deliver(statusWebhook(phoneNumberId, [{ id, status: "read", to: "4915112345671" }]));
    expect((await recipients(campaign.id))[0]?.state).toBe("read");
  });

  it("stores a repeated webhook delivery once", async () => {
    await w.contact(ada, { first_name: "Ada", custom_fields: { code: "A-1" } });
    const campaign = await w.campaign(channelId);
    const id = (await recipients(campaign.id))[0]?.provider_message_id ?? "";
    const payload = statusWebhook(phoneNumberId, [
      { id, status: "delivered", to: "4915112345671" },
    ]);
    expect((await w.graph.deliver(payload)).body).toContain('"stored":1');
    expect((await w.graph.deliver(payload)).body).toContain('"stored":0');
    await w.t.runJobs();
    expect(await w.stats(campaign.id)).toMatchObject({ delivered: 1 });
  });

  it("matches a status by biz_opaque_callback_data when the send's answer was lost", async () => {
    const contact = await w.contact(ada, { first_name: "Ada", custom_fields: { code: "A-1" } });
    w.graph.silentFor.add("4915112345671");
    const campaign = await w.campaign(channelId);
    expect((await recipients(campaign.id))[0]?.state).toBe("outcome_unknown");
    expect(w.graph.sends()).toHaveLength(1);
    // Not completed while a recipient's outcome is unknown: the status report settles it.
    expect(await w.get(`/campaigns/${campaign.id}`)).toMatchObject({ status: "running" });
    await w.deliver(
      statusWebhook(phoneNumberId, [
        {
          id: "wamid.LOST",
          status: "delivered",
          to: "4915112345671",
          recipientId: `${campaign.id}:${contact.id}`,
        },
      ]),
    );
    expect((await recipients(campaign.id))[0]).toMatchObject({
      state: "delivered",
      provider_message_id: "wamid.LOST",
    });
    expect(await w.stats(campaign.id)).toMatchObject({ queued: 0, sent: 1, delivered: 1 });
    expect(await w.get(`/campaigns/${campaign.id}`)).toMatchObject({ status: "completed" });
    // Counted in the month's meter once confirmed, not before.
    const meter = await w.t.database.db
      .selectFrom("message_counts")
      .select("sent")
      .where("workspace_id", "=", w.ws)
      .executeTakeFirst();
    expect(meter?.sent).toBe(1);
  });

  it("treats a 200 answer it cannot read as an unknown outcome, never as a failure or a resend", async () => {
    await w.contact(ada, { first_name: "Ada", custom_fields: { code: "A-1" } });
    w.graph.garbledFor.add("4915112345671");
    const campaign = await w.campaign(channelId);
    expect((await recipients(campaign.id))[0]?.state).toBe("outcome_unknown");
    expect(await w.stats(campaign.id)).toMatchObject({ failed: 0, queued: 1 });
    await w.t.runJobs();
    expect(w.graph.sends()).toHaveLength(1);
  });

  it("fails an unknown outcome with that reason when no status comes within 24 hours", async () => {
    await w.contact(ada, { first_name: "Ada", custom_fields: { code: "A-1" } });
    w.graph.silentFor.add("4915112345671");
    const campaign = await w.campaign(channelId);
    w.t.clock.advance(24 * 3600 * 1000 + 1000);
    await w.t.runJobs();
    expect((await recipients(campaign.id))[0]).toMatchObject({
      state: "failed",
      failure_reason: "outcome_unknown",
    });
    const stats = await w.stats(campaign.id);
    expect(stats).toMatchObject({ queued: 0, failed: 1 });
    expect(stats.failures).toEqual([{ reason: "outcome_unknown", count: 1 }]);
    expect(w.graph.sends()).toHaveLength(1);
    expect(await w.get(`/campaigns/${campaign.id}`)).toMatchObject({ status: "completed" });
  });

  it("fails an unknown outcome at 24 hours, not at the periodic sync's next round after", async () => {
    await w.contact(ada, { first_name: "Ada", custom_fields: { code: "A-1" } });
    w.t.clock.advance(7 * 60 * 1000); // out of step with the sync's 15-minute rounds
    w.graph.silentFor.add("4915112345671");
    const campaign = await w.campaign(channelId);
    w.t.clock.advance(24 * 3600 * 1000 - 60 * 1000);
    await w.t.runJobs();
    expect((await recipients(campaign.id))[0]?.state).toBe("outcome_unknown");
    w.t.clock.advance(61 * 1000);
    await w.t.runJobs();
    expect((await recipients(campaign.id))[0]).toMatchObject({
      state: "failed",
      failure_reason: "outcome_unknown",
    });
  });

  it("settles an unknown outcome in one sync round when the clock is just at its 24 hours", async () => {
    await w.contact(ada, { first_name: "Ada", custom_fields: { code: "A-1" } });
    w.t.clock.advance(7 * 60 * 1000);
    w.graph.silentFor.add("4915112345671");
    const campaign = await w.campaign(channelId);
    const sendingAt = (await recipients(campaign.id))[0]?.sending_at ?? "";
    // Half a second past the 24 hours: within the second the send's time was stored in.
    const at = Date.parse(sendingAt) + 24 * 3600 * 1000 + 500;
    w.t.clock.advance(at - w.t.clock.now().getTime());
    const asked = () =>
      w.graph.requests.filter((r) => r.method === "GET" && r.path.endsWith("/message_templates"))
        .length;
    const before = asked();
    await w.t.runJobs();
    expect((await recipients(campaign.id))[0]).toMatchObject({
      state: "failed",
      failure_reason: "outcome_unknown",
    });
    expect(asked() - before).toBeLessThanOrEqual(1);
  });

  it("never sends again by itself a message whose send was under way when the process died, and sends the rest", async () => {
    const draft = await launchedToAdaAndBob("Crash");
    // The process dies inside the first provider call: that recipient was marked `sending`
    // before it; the next one was not yet.
    await runnerSendingThrough({
      exactlyOnce: () => false,
      send: async () => {
        throw new Error("process died mid-send");
      },
    }).runDue();
    expect((await recipients(draft.id)).map((r) => r.state)).toEqual(["sending", "queued"]);
    // The restarted service resumes the campaign: Ada's send may have arrived, Bob's never began.
    w.t.clock.advance(3600 * 1000);
    await w.t.runJobs();
    expect((await recipients(draft.id)).map((r) => r.state)).toEqual(["outcome_unknown", "sent"]);
    expect(w.graph.sends().map((s) => (s.body as { to: string }).to)).toEqual([bob.slice(1)]);
  });

  it("leaves only the sends in flight outcome_unknown when the process dies with many at once", async () => {
    await contacts(40);
    const draft = await launched("Crash in flight");
    // The first send is answered, which opens every lane; the process dies with all of them on
    // their way, none answered.
    let started = 0;
    let die: (error: Error) => void = () => {};
    const dead = new Promise<never>((_, reject) => {
      die = reject;
    });
    dead.catch(() => {});
    await runnerSendingThrough(
      {
        exactlyOnce: () => false,
        send: async () => {
          started += 1;
          if (started === 1) return [{ status: "accepted", providerMessageId: "wamid.FIRST" }];
          if (started === defaultSendLanes + 1) die(new Error("process died mid-send"));
          return dead;
        },
      },
      { sendLanes: defaultSendLanes },
    ).runDue();
    const states = (await recipients(draft.id)).map((r) => r.state);
    expect(states.filter((state) => state === "sending")).toHaveLength(defaultSendLanes);
    expect(states.filter((state) => state === "queued")).toHaveLength(39 - defaultSendLanes);
    w.t.clock.advance(3600 * 1000);
    await w.t.runJobs();
    // The rest went out; those in flight wait for a status webhook (queued until then).
    const after = (await recipients(draft.id)).map((r) => r.state);
    expect(after.filter((state) => state === "outcome_unknown")).toHaveLength(defaultSendLanes);
    expect(await w.stats(draft.id)).toMatchObject({
      sent: 40 - defaultSendLanes,
      queued: defaultSendLanes,
    });
    expect(w.graph.sends()).toHaveLength(39 - defaultSendLanes);
  });

  it("puts a recipient Meta turned away for now back in the queue when another lane's send throws", async () => {
    await contacts(40);
    const draft = await launched("Throttled then broken");
    let calls = 0;
    await runnerSendingThrough(
      {
        exactlyOnce: () => false,
        send: async () => {
          calls += 1;
          const call = calls;
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (call === 2) return [{ status: "backoff", reason: "rate limit hit", code: 130429 }];
          if (call === 3) throw new Error("process died mid-send");
          return [{ status: "accepted", providerMessageId: `wamid.${call}` }];
        },
      },
      { sendLanes: defaultSendLanes },
    ).runDue();
    const states = (await recipients(draft.id)).map((r) => r.state);
    // Only the send that threw may have reached Meta; the throttled one was not taken.
    expect(states.filter((state) => state === "sending")).toHaveLength(1);
    expect(states.filter((state) => state === "queued").length).toBeGreaterThan(0);
    w.t.clock.advance(3600 * 1000);
    await w.t.runJobs();
    const after = (await recipients(draft.id)).map((r) => r.state);
    expect(after.filter((state) => state === "outcome_unknown")).toHaveLength(1);
    expect(after.filter((state) => state === "sent")).toHaveLength(39);
  });

  it("tries one send first, so a sender failing before it reaches Meta costs one recipient a run", async () => {
    await contacts(40);
    const draft = await launched("Broken sender");
    const runner = runnerSendingThrough(
      {
        exactlyOnce: () => false,
        send: async () => {
          throw new TypeError("a bug in the sender");
        },
      },
      { sendLanes: defaultSendLanes },
    );
    await givenUp(runner, draft.id);
    // One send a run was under way; the campaign's failure leaves them to their status webhooks
    // or the 24 h limit, none `sending` for good.
    const states = (await recipients(draft.id)).map((r) => r.state);
    expect(states.filter((state) => state === "sending")).toEqual([]);
    expect(states.filter((state) => state === "outcome_unknown")).toHaveLength(5);
    expect(await w.stats(draft.id)).toMatchObject({ failed: 35, queued: 5 });
  });

  it("closes the lanes and waits when Meta stops answering mid-run (a 502 burst): only about those in flight are lost", async () => {
    await contacts(60);
    const draft = await launched("Gateway outage");
    let calls = 0;
    let outage = false;
    let inFlight = 0;
    let mostInOutage = 0;
    let waits = 0;
    await runnerSendingThrough(
      {
        exactlyOnce: () => false,
        send: async () => {
          calls += 1;
          // Meta answers the first ten, then the gateway answers 502 until the run has waited.
          if (calls === 11) outage = true;
          inFlight += 1;
          if (outage) mostInOutage = Math.max(mostInOutage, inFlight);
          await new Promise((resolve) => setTimeout(resolve, 2));
          inFlight -= 1;
          return outage
            ? [{ status: "unknown", detail: "Graph answered HTTP 502" }]
            : [{ status: "accepted", providerMessageId: `wamid.${calls}` }];
        },
      },
      {
        sendLanes: defaultSendLanes,
        sleep: async () => {
          waits += 1;
          outage = false;
        },
      },
    ).runDue();
    const states = (await recipients(draft.id)).map((r) => r.state);
    const lost = states.filter((state) => state === "outcome_unknown").length;
    // The sends already on their way when the outage began, and the few started before it was
    // told from passing timeouts (unknownsToClose in a row); none after.
    expect(lost).toBeGreaterThan(0);
    expect(lost).toBeLessThanOrEqual(defaultSendLanes + unknownsToClose - 1);
    expect(mostInOutage).toBeLessThanOrEqual(defaultSendLanes);
    expect(waits).toBe(1);
    expect(states.filter((state) => state === "sent")).toHaveLength(60 - lost);
  });

  it("passes over an unknown outcome now and then (a timeout) without closing the lanes or waiting", async () => {
    await contacts(60);
    const draft = await launched("Flaky link");
    let waits = 0;
    const { sender, seen } = pacedSender((call) =>
      call % 10 === 5
        ? { status: "unknown", detail: "Graph did not answer (UND_ERR_HEADERS_TIMEOUT)" }
        : { status: "accepted", providerMessageId: `wamid.${call}` },
    );
    await runnerSendingThrough(sender, {
      sendLanes: defaultSendLanes,
      sleep: async () => {
        waits += 1;
      },
    }).runDue();
    const states = (await recipients(draft.id)).map((r) => r.state);
    expect(waits).toBe(0);
    expect(seen.most).toBeGreaterThan(1);
    expect(states.filter((state) => state === "outcome_unknown")).toHaveLength(6);
    expect(states.filter((state) => state === "sent")).toHaveLength(54);
  });

  it("sends alone, waiting between tries, while Meta's answers prove nothing (unknown outcomes)", async () => {
    await contacts(20);
    const draft = await launched("Broken gateway");
    let waits = 0;
    const { sender, seen } = pacedSender(() =>
      waits < 3
        ? { status: "unknown", detail: "Graph answered HTTP 502" }
        : { status: "accepted", providerMessageId: "wamid.OK" },
    );
    await runnerSendingThrough(sender, {
      sendLanes: defaultSendLanes,
      sleep: async () => {
        waits += 1;
      },
    }).runDue();
    const states = (await recipients(draft.id)).map((r) => r.state);
    // One send a try while nothing is answered; every lane once Meta answers again.
    expect(states.filter((state) => state === "outcome_unknown")).toHaveLength(3);
    expect(states.filter((state) => state === "sent")).toHaveLength(17);
    expect(seen.most).toBeGreaterThan(1);
  });

  it("leaves a send that threw after a cancel to its status webhook, not 'sending' for good", async () => {
    await contacts(5);
    const draft = await launched("Cancelled mid-send");
    let calls = 0;
    const runner = runnerSendingThrough({
      exactlyOnce: () => false,
      send: async () => {
        calls += 1;
        if (calls === 1) return [{ status: "accepted", providerMessageId: "wamid.FIRST" }];
        await w.post(`/campaigns/${draft.id}/cancel`, undefined, 200);
        throw new Error("connection reset by the database");
      },
    });
    await runner.runDue();
    w.t.clock.advance(120_000);
    await runner.runDue();
    const states = (await recipients(draft.id)).map((r) => r.state).sort();
    expect(states).toEqual(["cancelled", "cancelled", "cancelled", "outcome_unknown", "sent"]);
    expect(await w.stats(draft.id)).toMatchObject({ sent: 1, cancelled: 3, queued: 1 });
  });

  it("keeps each answered send of a batch, with its wamid, when the process dies on a later send", async () => {
    const draft = await launchedToAdaAndBob("Crash later");
    // Meta answers Ada's send; the process dies inside Bob's, in the same batch.
    let calls = 0;
    await runnerSendingThrough({
      exactlyOnce: () => false,
      send: async () => {
        calls += 1;
        if (calls > 1) throw new Error("process died mid-send");
        return [{ status: "accepted", providerMessageId: "wamid.ADA" }];
      },
    }).runDue();
    const rows = await recipients(draft.id);
    expect(rows.map((r) => [r.state, r.provider_message_id])).toEqual([
      ["sent", "wamid.ADA"],
      ["sending", null],
    ]);
    // A status naming only the wamid finds Ada while the rest of the batch is still open.
    await w.deliver(
      statusWebhook(phoneNumberId, [{ id: "wamid.ADA", status: "delivered", to: ada.slice(1) }]),
    );
    w.t.clock.advance(3600 * 1000);
    await w.t.runJobs();
    expect((await recipients(draft.id)).map((r) => r.state)).toEqual([
      "delivered",
      "outcome_unknown",
    ]);
    expect(await w.stats(draft.id)).toMatchObject({ sent: 1, delivered: 1, queued: 1 });
    expect(w.graph.sends()).toEqual([]);
  });

  it("keeps a campaign that outlived several takeovers going after a passing error, once it has sent again", async () => {
    const draft = await launchedToAdaAndBob("Survivor");
    let calls = 0;
    const runner = runnerSendingThrough(
      {
        exactlyOnce: () => true,
        send: async (messages) => {
          calls += 1;
          if (calls > 1) throw new Error("connection reset by the database");
          return messages.map((_, i) => ({
            status: "accepted" as const,
            providerMessageId: `wamid.OK${i}`,
          }));
        },
      },
      { batchSize: 1 },
    );
    // The first run snapshots the audience, then the operator is unreachable: nothing sent.
    calls = 1;
    await runner.runDue();
    // Then four instances died holding the job: the next claim is its fifth. In it, Ada's batch
    // goes out and the database fails once during Bob's.
    await diedHoldingTheJob(4);
    calls = 0;
    w.t.clock.advance(60_000);
    await runner.runDue();
    expect(await campaignJob()).toMatchObject({ state: "queued", attempts: 1 });
    w.t.clock.advance(60_000);
    await w.t.runJobs();
    expect(await w.get(`/campaigns/${draft.id}`)).toMatchObject({ status: "completed" });
    expect(await w.stats(draft.id)).toMatchObject({ sent: 2, queued: 0 });
  });

  it("counts a batch the operator partly throttled as progress: a campaign that outlived takeovers is not given up", async () => {
    const draft = await launchedToAdaAndBob("Throttled survivor");
    let calls = 0;
    const runner = runnerSendingThrough(
      {
        exactlyOnce: () => true,
        send: async (messages) => {
          calls += 1;
          if (calls === 1) throw new Error("operator unreachable");
          if (calls > 2) throw new Error("connection reset by the database");
          // Ada goes out; Bob is throttled by Meta (130429) and waits for the next batch.
          return messages.map((_, i) =>
            i === 0
              ? { status: "accepted" as const, providerMessageId: "wamid.ADA" }
              : { status: "backoff" as const, reason: "rate limit hit", code: 130429 },
          );
        },
      },
      { batchSize: 2 },
    );
    await runner.runDue();
    await diedHoldingTheJob(4);
    w.t.clock.advance(60_000);
    await runner.runDue();
    expect(await campaignJob()).toMatchObject({ state: "queued", attempts: 1 });
    expect(await w.get(`/campaigns/${draft.id}`)).toMatchObject({ status: "running" });
  });

  it("sends nothing of a campaign cancelled while it waited for its workspace's turn", async () => {
    const a = (await launchedToAdaAndBob("A")).id;
    const b = (await launched("B")).id;
    // The first campaign's batch is held at the operator until the test lets it go.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first: string | undefined;
    const sentTo: string[] = [];
    const sender: MessageSender = {
      exactlyOnce: () => true,
      send: async (messages) => {
        const campaign = messages[0]?.recipientId.split(":")[0] ?? "";
        first ??= campaign;
        if (campaign === first) await held;
        sentTo.push(...messages.map((m) => m.recipientId));
        return messages.map((_, i) => ({
          status: "accepted" as const,
          providerMessageId: `wamid.${campaign}.${i}`,
        }));
      },
    };
    // Two loops, as two instances: one sends, the other waits for the workspace's turn.
    const runs = Promise.all([
      runnerSendingThrough(sender).runDue(1),
      runnerSendingThrough(sender).runDue(1),
    ]);
    while (first === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const other = first === a ? b : a;
    await w.post(`/campaigns/${other}/cancel`, undefined, 200);
    release();
    await runs;
    expect(sentTo.filter((id) => id.startsWith(`${other}:`))).toEqual([]);
    expect(sentTo.filter((id) => id.startsWith(`${first}:`))).toHaveLength(2);
  });

  it("fails a campaign with internal_error when its job is given up, never leaving it running", async () => {
    const draft = await launchedToAdaAndBob("Doomed");
    const runner = runnerSendingThrough({
      exactlyOnce: () => true,
      send: async () => {
        throw new TypeError("a bug in the sender");
      },
    });
    await givenUp(runner, draft.id);
    expect(await w.stats(draft.id)).toMatchObject({ sent: 0, failed: 2, queued: 0 });
  });

  it("opts a contact out on an inbound STOP and back in on START", async () => {
    const contact = await w.contact(ada, { first_name: "Ada" });
    await w.deliver(inboundWebhook(phoneNumberId, "4915112345671", "STOP", "wamid.IN1"));
    expect((await w.get(`/contacts/${contact.id}`)).opt_in_status).toBe("opted_out");
    await w.deliver(inboundWebhook(phoneNumberId, "4915112345671", "start", "wamid.IN2"));
    expect((await w.get(`/contacts/${contact.id}`)).opt_in_status).toBe("opted_in");
  });

  it("keeps no reply's text but a consent keyword, and forgets applied replies after 30 days", async () => {
    await w.contact(ada, { first_name: "Ada" });
    await w.deliver(
      inboundWebhook(phoneNumberId, "4915112345671", "My results came back, call me", "wamid.P1"),
    );
    await w.deliver(inboundWebhook(phoneNumberId, "4915112345671", "STOP", "wamid.P2"));
    const stored = async () =>
      (
        await w.t.database.db
          .selectFrom("whatsapp_webhook_events")
          .select("payload")
          .where("kind", "=", "message")
          .orderBy("received_at")
          .orderBy("id")
          .execute()
      ).map((row) => (JSON.parse(row.payload) as { text: string }).text);
    expect(await stored()).toEqual(["", "STOP"]);
    w.t.clock.advance(31 * 86_400_000);
    await pruneEvents(w.t.database.db, w.t.clock);
    expect(await stored()).toEqual([]);
  });

  it("takes no simulated reply from the sandbox for a workspace with a Cloud number: a START never forges consent", async () => {
    const contact = await w.contact(ada, { first_name: "Ada" });
    await w.deliver(inboundWebhook(phoneNumberId, "4915112345671", "STOP", "wamid.IN5"));
    for (const text of ["START", "STOP"]) {
      const simulated = await w.t.request("POST", "/api/v1/sandbox/inbound", {
        body: { workspace_id: w.ws, from: ada, text },
      });
      expect(simulated.statusCode).toBe(422);
      expect(simulated.json().details).toContainEqual({
        field: "workspace_id",
        message: expect.stringContaining("its contacts' replies come from Meta"),
      });
    }
    expect((await w.get(`/contacts/${contact.id}`)).opt_in_status).toBe("opted_out");
  });

  it("answers 200 to events for a number it does not know, and ignores them", async () => {
    const contact = await w.contact(ada, { first_name: "Ada" });
    await w.deliver(inboundWebhook("555555555", "4915112345671", "STOP", "wamid.IN3"));
    expect((await w.get(`/contacts/${contact.id}`)).opt_in_status).toBe("opted_in");
  });

  it("takes a signed delivery of thousands of statuses, as Meta batches them (up to 3 MB)", async () => {
    const statuses = Array.from({ length: 8000 }, (_, i) => ({
      id: `wamid.HBgNNDkxNTExMjM0NTY3MRUCABEYEjQ0${String(i).padStart(8, "0")}`,
      status: "delivered" as const,
      to: "4915112345671",
    }));
    const batch = statusWebhook(phoneNumberId, statuses);
    expect(JSON.stringify(batch).length).toBeGreaterThan(1024 * 1024);
    await w.deliver(batch);
    const tooLarge = await w.graph.deliver({ padding: "x".repeat(3 * 1024 * 1024) });
    expect(tooLarge.status).toBe(413);
  });

  it("refuses a missing or wrong signature with 401 and changes nothing", async () => {
    const contact = await w.contact(ada, { first_name: "Ada" });
    const storedEvents = () =>
      w.t.database.db.selectFrom("whatsapp_webhook_events").select("id").execute();
    const before = (await storedEvents()).length;
    const payload = inboundWebhook(phoneNumberId, "4915112345671", "STOP", "wamid.IN4");
    const missing = await w.graph.deliver(payload, { signature: null });
    const wrong = await w.graph.deliver(payload, { signature: `sha256=${"0".repeat(64)}` });
    // A signature of the same JSON written differently: the bytes, not the meaning, are signed.
    const reencoded = await w.graph.deliver(payload, {
      raw: JSON.stringify(payload, null, 2),
      signature: (await signed(JSON.stringify(payload))) ?? "",
    });
    // Judged before the media type: a body posted as text or form data is still a 401.
    const asText = await w.graph.deliver(payload, { signature: null, contentType: "text/plain" });
    const asForm = await w.graph.deliver(payload, {
      signature: `sha256=${"0".repeat(64)}`,
      contentType: "application/x-www-form-urlencoded",
    });
    for (const answer of [missing, wrong, reencoded, asText, asForm]) {
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body).error_code).toBe("unauthenticated");
    }
    await w.t.runJobs();
    expect(await storedEvents()).toHaveLength(before);
    expect((await w.get(`/contacts/${contact.id}`)).opt_in_status).toBe("opted_in");
  });

  it("takes a well-signed delivery whatever Content-Type it came with, the bytes being what is signed", async () => {
    const contact = await w.contact(ada, { first_name: "Ada" });
    const payload = inboundWebhook(phoneNumberId, "4915112345671", "STOP", "wamid.IN5");
    for (const contentType of ["text/plain;charset=UTF-8", null]) {
      const answer = await w.graph.deliver(payload, { contentType });
      expect(answer.status, answer.body).toBe(200);
    }
    await w.t.runJobs();
    expect((await w.get(`/contacts/${contact.id}`)).opt_in_status).toBe("opted_out");
  });
});

async function signed(raw: string): Promise<string> {
  const { createHmac } = await import("node:crypto");
  return `sha256=${createHmac("sha256", "fake-app-secret").update(raw).digest("hex")}`;
}
