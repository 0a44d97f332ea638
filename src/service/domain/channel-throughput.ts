import { sql } from "kysely";
import type { Db } from "../db/database.js";

/** How many of a batch may go now on a channel, and how long to wait when none may. */
export interface ThroughputGrant {
  granted: number;
  waitMs: number;
  /**
   * Says how many of the granted messages were sent (the rest, e.g. skipped recipients, go back
   * to the channel's budget for others); call once, before sending.
   */
  settle?(used: number): Promise<void>;
}

/** A per-channel throughput limit, as the campaign engine asks it before each batch. */
export interface ChannelThroughput {
  /** How many of `wanted` messages may go now on `channelId`, and how long to wait if none. */
  take(channelId: string, wanted: number): Promise<ThroughputGrant>;
}

/** A claim this close to the end of its second waits for the next (see SharedChannelThroughput). */
const lateMs = 150;

/** How often rows of seconds long gone are deleted. */
const pruneEveryMs = 60_000;

/**
 * A channel's throughput limit (`serve --throughput`) held by every instance on the database
 * together: messages are granted per channel and wall-clock second from a row in
 * `rate_limit_buckets` (`channel:<id>:<second>`), one conditional upsert per claim, so a batch
 * costs one round trip, not one per message. A claim takes what is left of the second, up to its
 * batch: a batch costs a dozen statements, and smaller ones left a loaded machine short of the
 * limit (measured: 29 msg/s of 50 with tenths of a second per claim). Once a second's budget is
 * spent, a claim gets nothing and waits for the next second. Nor does a claim in the last
 * `lateMs` of a second get any: its messages would be sent in the next second, on top of that
 * second's own budget (measured: 160 messages in one second at a limit of 80, two campaigns on
 * two instances); it waits for the next second, whose first claim takes its whole budget.
 */
export class SharedChannelThroughput implements ChannelThroughput {
  private prunedAt = 0;

  /** `rate`: messages per second per channel; 0 means unlimited. `now`: the clock (tests). */
  constructor(
    private readonly db: Db,
    private readonly rate: number,
    private readonly now: () => number = Date.now,
  ) {}

  async take(channelId: string, wanted: number): Promise<ThroughputGrant> {
    if (this.rate <= 0) return { granted: wanted, waitMs: 0 };
    const now = this.now();
    const second = Math.floor(now / 1000);
    const nextSecond = (second + 1) * 1000;
    if (nextSecond - now <= lateMs) return { granted: 0, waitMs: nextSecond - now + 1 };
    const ask = Math.min(wanted, this.rate);
    await this.prune(now);
    // The count goes up by the whole ask while the second's budget is not spent, so the claim's
    // share follows from the total it returns: what was left before it, up to its ask.
    const bucket = `channel:${channelId}:${second}`;
    const row = await this.db
      .insertInto("rate_limit_buckets")
      .values({
        bucket,
        hits: ask,
        window_ends_at: new Date((second + 1) * 1000).toISOString(),
      })
      .onConflict((oc) =>
        oc
          .column("bucket")
          .doUpdateSet({ hits: sql<number>`rate_limit_buckets.hits + excluded.hits` })
          .where("rate_limit_buckets.hits", "<", this.rate),
      )
      .returning("hits")
      .executeTakeFirst();
    const before = row ? row.hits - ask : this.rate;
    const granted = Math.max(0, Math.min(ask, this.rate - before));
    if (granted > 0) {
      // The count went up by the whole ask: what was asked and not sent goes back, so a campaign
      // that ran out of recipients (or skipped some) leaves the rest of the second to others.
      const settle = async (used: number) => {
        if (ask - used <= 0 || Math.floor(this.now() / 1000) !== second) return;
        await this.db
          .updateTable("rate_limit_buckets")
          .set({ hits: sql<number>`hits - ${ask - used}` })
          .where("bucket", "=", bucket)
          .execute();
      };
      return { granted, waitMs: 0, settle };
    }
    return { granted: 0, waitMs: nextSecond - this.now() + 1 };
  }

  /** Deletes the rows of seconds a minute gone (the rate limiter prunes its own the same way). */
  private async prune(now: number): Promise<void> {
    if (now - this.prunedAt < pruneEveryMs) return;
    this.prunedAt = now;
    await this.db
      .deleteFrom("rate_limit_buckets")
      .where("bucket", "like", "channel:%")
      .where("window_ends_at", "<", new Date(now - pruneEveryMs).toISOString())
      .execute();
  }
}
