import { sql } from "kysely";
import type { RateLimit } from "../config.js";
import type { Db } from "../db/database.js";
import { lockedOut, unlessLocked } from "../db/write-conflicts.js";
import type { Clock } from "./clock.js";

/** What rate limiting decided about one request. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the bucket's window ends and its count starts again. */
  resetMs: number;
}

interface Entry {
  /** End of the window as the database knows it (epoch ms); null before the first sync. */
  windowEndsAt: number | null;
  /** The count across all instances at the last sync. */
  known: number;
  /** Hits being written right now. */
  inFlight: number;
  /** Hits counted here and not written yet. */
  pending: number;
  /** When this entry last synced (monotonic ms). */
  syncedAt: number;
}

/** How often unwritten hits are written, and how stale another instance's view may be. */
const defaultSyncMs = 250;
/** How often buckets whose window ended long ago are deleted. */
const pruneEveryMs = 60_000;

/**
 * Request counts per bucket (a token, or a client address), shared by every instance through a
 * row per bucket in the database. A window starts with a bucket's first hit and lasts
 * `limit.windowMs`. Far from the limit, hits are counted here and written in batches (every
 * `batch` hits or 250 ms), so a busy token costs a write per batch rather than per request; near
 * the limit every hit is written and the decision follows the database's count, so the limit
 * holds across instances up to the few hits other instances have not written yet.
 */
export class SharedRateCounter {
  private readonly entries = new Map<string, Entry>();
  private readonly batch: number;
  private readonly headroom: number;
  private readonly timer: NodeJS.Timeout;
  private prunedAt = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly limit: RateLimit,
    private readonly options: {
      syncMs?: number;
      onError?: (error: unknown) => void;
      /** A write succeeded, in a round or in a request's hit (an outage reported is over). */
      onWritten?: () => void;
    } = {},
  ) {
    // Small limits are counted exactly (a write per hit); large ones in batches of up to 100.
    this.batch = Math.max(1, Math.min(100, Math.floor(limit.max / 50)));
    this.headroom = this.batch * 4;
    this.timer = setInterval(() => void this.flushAll(), options.syncMs ?? defaultSyncMs);
    this.timer.unref();
  }

  /** Counts one request against `bucket` and says whether it is within the limit. */
  async hit(bucket: string): Promise<RateDecision> {
    const now = this.clock.now().getTime();
    let entry = this.entries.get(bucket);
    if (entry && entry.windowEndsAt !== null && now >= entry.windowEndsAt) {
      // The window ended: hits not yet written belonged to it and no longer matter.
      this.entries.delete(bucket);
      entry = undefined;
    }
    if (!entry) {
      entry = { windowEndsAt: null, known: 0, inFlight: 0, pending: 0, syncedAt: 0 };
      this.entries.set(bucket, entry);
    }
    entry.pending += 1;
    const local = entry.known + entry.inFlight + entry.pending;
    if (entry.windowEndsAt !== null) {
      const spent = entry.known >= this.limit.max;
      const fresh = performance.now() - entry.syncedAt < (this.options.syncMs ?? defaultSyncMs);
      const roomy = local + this.headroom <= this.limit.max && entry.pending < this.batch;
      if (spent || (fresh && roomy)) return this.decide(local, entry.windowEndsAt, now);
    }
    // This hit was the last one added before the write, so the total is its position. While
    // another connection holds SQLite's write lock (an import's thread), the count known here
    // decides, and the hits are written by a later sync.
    const total = (await this.sync(bucket, entry)) ?? local;
    return this.decide(total, entry.windowEndsAt ?? now + this.limit.windowMs, now);
  }

  /** What `bucket` has left, as this instance knows it, without counting a request. */
  peek(bucket: string): RateDecision {
    const now = this.clock.now().getTime();
    const entry = this.entries.get(bucket);
    if (!entry || entry.windowEndsAt === null || now >= entry.windowEndsAt) {
      return this.decide(0, now + this.limit.windowMs, now);
    }
    return this.decide(entry.known + entry.inFlight + entry.pending, entry.windowEndsAt, now);
  }

  /** Writes every unwritten hit and stops the timer: the service is stopping. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flushAll();
  }

  private decide(position: number, windowEndsAt: number, now: number): RateDecision {
    return {
      allowed: position <= this.limit.max,
      limit: this.limit.max,
      remaining: Math.max(0, this.limit.max - position),
      resetMs: Math.max(0, windowEndsAt - now),
    };
  }

  /**
   * Adds the entry's pending hits to the bucket's row and learns the total across instances;
   * null when the row could not be written without waiting (the hits stay pending).
   */
  private async sync(bucket: string, entry: Entry): Promise<number | null> {
    const add = entry.pending;
    entry.pending = 0;
    entry.inFlight += add;
    const now = this.clock.now();
    const nowIso = now.toISOString();
    let row: { hits: number; window_ends_at: string } | typeof lockedOut;
    try {
      // One statement, the same on SQLite and PostgreSQL: the row's window goes on while it has
      // not ended, otherwise this hit starts a new one.
      row = await unlessLocked(this.db, (db) =>
        db
          .insertInto("rate_limit_buckets")
          .values({
            bucket,
            hits: add,
            window_ends_at: new Date(now.getTime() + this.limit.windowMs).toISOString(),
          })
          .onConflict((oc) =>
            oc.column("bucket").doUpdateSet({
              hits: sql<number>`CASE WHEN rate_limit_buckets.window_ends_at > ${nowIso}
              THEN rate_limit_buckets.hits + excluded.hits ELSE excluded.hits END`,
              window_ends_at: sql<string>`CASE WHEN rate_limit_buckets.window_ends_at > ${nowIso}
              THEN rate_limit_buckets.window_ends_at ELSE excluded.window_ends_at END`,
            }),
          )
          .returning(["hits", "window_ends_at"])
          .executeTakeFirstOrThrow(),
      );
    } catch (error) {
      // Not written: they stay pending for the next write.
      entry.pending += add;
      throw error;
    } finally {
      entry.inFlight -= add;
    }
    if (row === lockedOut) {
      entry.pending += add;
      // A window of its own until a sync learns the row's, so the count still resets in time.
      entry.windowEndsAt ??= now.getTime() + this.limit.windowMs;
      return null;
    }
    // Written (here or in a request's hit): an outage the errors reported is over.
    this.options.onWritten?.();
    entry.syncedAt = performance.now();
    const endsAt = Date.parse(row.window_ends_at);
    if (endsAt !== entry.windowEndsAt) {
      entry.windowEndsAt = endsAt;
      entry.known = row.hits;
    } else {
      entry.known = Math.max(entry.known, row.hits);
    }
    return row.hits;
  }

  private async flushAll(): Promise<void> {
    const now = this.clock.now().getTime();
    try {
      for (const [bucket, entry] of this.entries) {
        if (entry.windowEndsAt !== null && now >= entry.windowEndsAt) {
          this.entries.delete(bucket);
        } else if (entry.pending > 0) {
          await this.sync(bucket, entry);
        }
      }
      if (now - this.prunedAt >= pruneEveryMs) {
        this.prunedAt = now;
        await this.db
          .deleteFrom("rate_limit_buckets")
          .where("window_ends_at", "<", new Date(now - pruneEveryMs).toISOString())
          .execute();
        this.options.onWritten?.();
      }
    } catch (error) {
      // A busy database delays the write; the hits stay pending for the next round.
      this.options.onError?.(error);
    }
  }
}
