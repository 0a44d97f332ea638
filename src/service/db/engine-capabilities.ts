import type { QueryExecutorProvider } from "kysely";
import { engineOf } from "./engine.js";

/**
 * What the engine behind a handle allows that changes how bulk work goes about its writes, named
 * for what it allows: the domain asks for a capability, never for an engine.
 */
export interface EngineCapabilities {
  /**
   * A transaction's statements run elsewhere (PostgreSQL's server) while this thread goes on, so
   * a batch can be written while the next one is checked. Not on SQLite: statements run on this
   * thread, and a transaction must not stay open while other work runs between its statements.
   */
  writesOverlapWork: boolean;
  /**
   * A write can go in another's WITH (PostgreSQL's data-modifying CTEs), so two writes cost one
   * round trip. SQLite's WITH holds SELECTs only.
   */
  writesCombine: boolean;
}

const postgres: EngineCapabilities = { writesOverlapWork: true, writesCombine: true };
const sqlite: EngineCapabilities = { writesOverlapWork: false, writesCombine: false };

/** The capabilities of the engine behind a database handle or transaction. */
export function capabilitiesOf(db: QueryExecutorProvider): EngineCapabilities {
  return engineOf(db) === "postgres" ? postgres : sqlite;
}
