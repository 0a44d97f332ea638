import { processSpace } from "../db/connection-names.js";
import type { Db } from "../db/database.js";
import type { Clock } from "../domain/clock.js";
import { newId } from "../domain/ids.js";

/** How often a running instance says it is alive. */
export const defaultHeartbeatMs = 5000;

/** Instance rows not seen for this long are removed (their jobs were taken over long ago). */
const forgetAfterMs = 24 * 60 * 60 * 1000;

/** The beginning of time: a heartbeat set to it marks an instance dead at once. */
const longAgo = new Date(0).toISOString();

/** Whether a process with this id runs in this process's space (see processSpace). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * This process as one of the service's instances: a random id that owns its job leases, and a
 * heartbeat row other instances read to tell whether those leases are still looked after.
 */
export class InstanceRegistry {
  readonly id = newId("ins");
  private readonly host = processSpace;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Records this instance as alive (first call) or still alive (every heartbeat). */
  async beat(): Promise<void> {
    const now = this.clock.now().toISOString();
    await this.db
      .insertInto("instances")
      .values({
        id: this.id,
        host: this.host,
        pid: process.pid,
        started_at: now,
        last_seen_at: now,
      })
      .onConflict((oc) => oc.column("id").doUpdateSet({ last_seen_at: now }))
      .execute();
  }

  /**
   * Marks dead the instances in this process's space (this machine, this pid namespace) whose
   * process is gone (a crash or SIGKILL), so a restart takes over their jobs at once instead of
   * after the heartbeat timeout; forgets instances gone for a day.
   */
  async sweep(): Promise<void> {
    const local = await this.db
      .selectFrom("instances")
      .select(["id", "pid"])
      .where("host", "=", this.host)
      .where("id", "<>", this.id)
      .where("last_seen_at", ">", longAgo)
      .execute();
    const gone = local.filter((row) => !processRuns(row.pid)).map((row) => row.id);
    if (gone.length > 0) {
      await this.db
        .updateTable("instances")
        .set({ last_seen_at: longAgo })
        .where("id", "in", gone)
        .execute();
    }
    // A dead instance's row stays while it still holds a lease: it is what marks the lease free.
    const forgotten = new Date(this.clock.now().getTime() - forgetAfterMs).toISOString();
    await this.db
      .deleteFrom("instances")
      .where("last_seen_at", "<", forgotten)
      .where((eb) =>
        eb(
          "id",
          "not in",
          eb
            .selectFrom("jobs")
            .select("lease_owner")
            .where("state", "=", "running")
            .where("lease_owner", "is not", null),
        ),
      )
      .execute();
  }

  /** Removes this instance's row: a graceful stop, after its leases were released. */
  async leave(): Promise<void> {
    await this.db.deleteFrom("instances").where("id", "=", this.id).execute();
  }
}
