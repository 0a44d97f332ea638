import type { Kysely } from "kysely";

/**
 * Due jobs by kind: each lane of the job runner claims only its own kinds (jobs/job-runner.ts),
 * and a claim that had to read past every due job of other kinds (a backlog of webhook
 * deliveries) took 5 ms at 20,000 of them and 32 ms at 100,000, on every poll. With this index a
 * claim reads only rows of its kinds (0.1 ms at 20,000 others, SQLite).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("jobs_due_by_kind")
    .on("jobs")
    .columns(["state", "kind", "run_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("jobs_due_by_kind").execute();
}
