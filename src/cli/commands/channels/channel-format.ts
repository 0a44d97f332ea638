import type { Channel } from "../../../contract/channels.js";
import { when } from "../../output/time.js";
import type { Column, View } from "../../output/view.js";
import { tableView } from "../../output/view.js";

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

/** One channel in full: a cloud number's Graph ids, verified name and quality rating too. */
export const channelDetailColumns: Column<Channel>[] = [
  ...channelColumns.slice(0, -1),
  { header: "Verified name", key: "verified_name", value: (c) => c.verified_name ?? "" },
  { header: "Quality", key: "quality_rating", value: (c) => c.quality_rating ?? "" },
  { header: "Phone number id", key: "phone_number_id", value: (c) => c.phone_number_id ?? "" },
  { header: "WABA id", key: "waba_id", value: (c) => c.waba_id ?? "" },
  ...channelColumns.slice(-1),
];

/** A list of channels. */
export function channelTable(rows: readonly Channel[]): View {
  return tableView(rows, channelColumns, {
    empty: "No channels yet. Connect a number with `reseller channels add --phone +E164 --name N`.",
  });
}
