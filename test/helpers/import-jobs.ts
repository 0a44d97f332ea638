import type { Db } from "../../src/service/db/database.js";
import type { Job } from "../../src/service/jobs/job-queue.js";

/** The queued job of an import, as the runner would hand it to its handler on a first run. */
export async function queuedImportJob(db: Db, importId: string): Promise<Job> {
  const row = await db
    .selectFrom("jobs")
    .selectAll()
    .where("payload", "like", `%${importId}%`)
    .executeTakeFirstOrThrow();
  return {
    id: row.id,
    kind: row.kind,
    payload: { import_id: importId },
    attempts: 1,
    checkpoint: null,
    serialKey: null,
  };
}

/** Pieces of uploaded files stored in the database (none once an upload is refused). */
export async function storedUploadPieces(db: Db): Promise<number> {
  const row = await db
    .selectFrom("contact_import_uploads")
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
