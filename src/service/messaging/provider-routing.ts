import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { ChannelTable } from "../db/tables/campaigns.js";
import type { MessageSender } from "./message-sender.js";
import type { MessagingProvider } from "./provider.js";

/** Which operator serves what: per channel (its `provider`) and per workspace (its templates). */
export interface MessagingProviders {
  /** How long after submission a template's review job first runs (the sandbox's review delay). */
  readonly reviewDelayMs: number;
  /** The operator of channels whose `provider` is `kind`; the sandbox for any other value. */
  of(kind: string): MessagingProvider;
  /**
   * The operator that reviews a workspace's templates: Meta, through the workspace's cloud
   * channel (its WABA holds the templates; a connected one first), when it has one; the sandbox
   * otherwise.
   */
  forWorkspace(
    workspaceId: string,
  ): Promise<{ provider: MessagingProvider; channel: ChannelTable | null }>;
  /** The campaign engine's sending port: each batch goes through its channel's operator. */
  readonly sender: MessageSender;
}

/** Routes between the sandbox and the WhatsApp Cloud API adapter. */
export function messagingProviders(deps: {
  db: Db;
  sandbox: MessagingProvider & { reviewDelayMs: number };
  cloud: MessagingProvider;
}): MessagingProviders {
  const of = (kind: string) => (kind === deps.cloud.kind ? deps.cloud : deps.sandbox);
  return {
    reviewDelayMs: deps.sandbox.reviewDelayMs,
    of,
    async forWorkspace(workspaceId) {
      const channel = await deps.db
        .selectFrom("channels")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("provider", "=", deps.cloud.kind)
        // A disconnected number still belongs to the WABA that holds the templates: its templates
        // wait for Meta (submitted once it is connected again), never approved by the sandbox.
        .orderBy(sql`CASE WHEN status = 'connected' THEN 0 ELSE 1 END`)
        .orderBy("created_at")
        .executeTakeFirst();
      return channel
        ? { provider: deps.cloud, channel }
        : { provider: deps.sandbox, channel: null };
    },
    sender: {
      exactlyOnce: (provider) => of(provider).exactlyOnce,
      async send(messages) {
        const channelId = messages[0]?.channelId;
        if (!channelId) return [];
        // All messages of a batch share a channel.
        const channel = await deps.db
          .selectFrom("channels")
          .select("provider")
          .where("id", "=", channelId)
          .executeTakeFirst();
        return of(channel?.provider ?? deps.sandbox.kind).send(messages);
      },
    },
  };
}
