/**
 * A token bucket: `rate` messages per second with a burst of one second's worth. Per channel,
 * since WhatsApp limits throughput per sending number.
 */
export class Throttle {
  private tokens: number;
  private last: number;

  constructor(
    private readonly rate: number,
    now: number,
  ) {
    this.tokens = rate;
    this.last = now;
  }

  /** Up to `wanted` messages that may go now (0 when the bucket is empty). */
  take(wanted: number, now: number): number {
    this.refill(now);
    const granted = Math.min(wanted, Math.floor(this.tokens));
    this.tokens -= granted;
    return granted;
  }

  /** Returns messages taken but not sent. */
  giveBack(unused: number): void {
    if (unused > 0) this.tokens = Math.min(this.rate, this.tokens + unused);
  }

  /** Milliseconds until at least one message may go. */
  waitMs(now: number): number {
    this.refill(now);
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.rate) * 1000);
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.rate, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
  }
}

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

/**
 * One throttle per channel in this process, kept for the life of the service; a rate of 0 means
 * unlimited. For one process alone (tests, tools): `serve` shares the limit across instances
 * through the database (channel-send-windows.ts).
 */
export class ChannelThrottles implements ChannelThroughput {
  private readonly throttles = new Map<string, Throttle>();

  constructor(readonly rate: number) {}

  async take(channelId: string, wanted: number, now = Date.now()): Promise<ThroughputGrant> {
    if (this.rate <= 0) return { granted: wanted, waitMs: 0 };
    let throttle = this.throttles.get(channelId);
    if (!throttle) {
      throttle = new Throttle(this.rate, now);
      this.throttles.set(channelId, throttle);
    }
    const granted = throttle.take(wanted, now);
    const bucket = throttle;
    return {
      granted,
      waitMs: granted > 0 ? 0 : throttle.waitMs(now),
      settle: async (used) => bucket.giveBack(granted - used),
    };
  }
}
