import type { Channel } from "../../../contract/channels.js";
import type { Column, View } from "../../output/view.js";
import { tableView } from "../../output/view.js";
import { when } from "../workspaces/workspace-format.js";

/** `/api/v1/workspaces/<id>/channels`. */
export function channelsPath(workspaceId: string): string {
  return `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/channels`;
}

/** The columns (and record fields) of a channel; CSV headers are the wire's field names. */
export const channelColumns: Column<Channel>[] = [
  { header: "Id", key: "id", value: (c) => c.id },
  { header: "Name", key: "name", value: (c) => c.name, display: (c, paint) => paint.bold(c.name) },
  { header: "Phone", key: "phone", value: (c) => c.phone },
  {
    header: "Status",
    key: "status",
    value: (c) => c.status,
    display: (c, paint) => paint.status(c.status),
  },
  { header: "Provider", key: "provider", value: (c) => c.provider },
  {
    header: "Created",
    key: "created_at",
    value: (c) => c.created_at,
    display: (c) => when(c.created_at),
  },
];

/** A list of channels. */
export function channelTable(rows: readonly Channel[]): View {
  return tableView(rows, channelColumns, {
    empty: "No channels yet. Connect a number with `reseller channels add --phone +E164 --name N`.",
  });
}
