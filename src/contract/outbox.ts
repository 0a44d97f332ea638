import { z } from "zod";
import { listEnvelope, PageQuery } from "./pagination.js";

export const outboxDeliveries = ["outbox", "pending", "sent", "failed"] as const;

/** An email the service wrote (an invitation), as the operator can read it. */
export const OutboxEmail = z
  .object({
    id: z.string(),
    kind: z.string().describe("Why it was sent, e.g. `invitation`."),
    workspace_id: z.string().nullable(),
    to: z.string(),
    subject: z.string(),
    text: z.string().describe("The plain-text body, links included."),
    delivery: z
      .enum(outboxDeliveries)
      .describe(
        "`outbox`: no SMTP server is configured, the outbox is the destination; `pending`: being handed to SMTP; `sent`: SMTP accepted it; `failed`: SMTP refused it (see `error`).",
      ),
    error: z
      .string()
      .nullable()
      .describe(
        "Why a send failed: the mail server's answer for a reseller token; for a workspace token only that it failed (the server's words name the reseller's hosts).",
      ),
    created_at: z.string(),
    sent_at: z.string().nullable(),
  })
  .meta({ id: "OutboxEmail" });
export type OutboxEmail = z.infer<typeof OutboxEmail>;

export const OutboxListQuery = PageQuery.extend({
  workspace_id: z.string().min(1).optional().describe("Only emails about this workspace."),
});
export const OutboxListResponse = listEnvelope(OutboxEmail);
