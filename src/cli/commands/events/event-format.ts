import type { Event } from "../../../contract/events.js";
import { when } from "../../output/time.js";
import type { Column } from "../../output/view.js";

/** `/api/v1/events[/<id>[/rest]]`, the id encoded. */
export function eventsPath(id?: string, rest = ""): string {
  return `/api/v1/events${id === undefined ? "" : `/${encodeURIComponent(id)}`}${rest}`;
}

/** The id (or name) of the resource an event is about. */
function subject(event: Event): string {
  const { id, name } = event.data as { id?: unknown; name?: unknown };
  return [id, name].filter((v) => typeof v === "string").join(" ");
}

export const eventColumns: Column<Event>[] = [
  { header: "Id", key: "id", value: (e) => e.id },
  { header: "Type", key: "type", value: (e) => e.type, display: (e, paint) => paint.bold(e.type) },
  { header: "Workspace", key: "workspace_id", value: (e) => e.workspace_id },
  { header: "About", key: "data", value: (e) => subject(e) },
  {
    header: "When",
    key: "created_at",
    value: (e) => e.created_at,
    display: (e) => when(e.created_at),
  },
];
