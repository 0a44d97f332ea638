import { parentPort, workerData } from "node:worker_threads";
import BetterSqlite3 from "better-sqlite3";
import type { CheckpointerInput } from "./sqlite-checkpointer.js";

// The entry of the checkpointer thread (see sqlite-checkpointer.ts): a connection of its own
// that copies the write-ahead log back into the database file now and then, and once more when
// asked to stop. PASSIVE: it never waits for, nor holds up, a reader or a writer.

const input = workerData as CheckpointerInput;
const sqlite = new BetterSqlite3(input.file);
sqlite.pragma("synchronous = NORMAL");

const checkpoint = () => sqlite.pragma("wal_checkpoint(PASSIVE)");
const timer = setInterval(checkpoint, input.everyMs);

parentPort?.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  try {
    checkpoint();
  } finally {
    sqlite.close();
    parentPort?.close();
  }
});
