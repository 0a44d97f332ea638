import { sql } from "kysely";
import { e164Pattern } from "../../contract/phones.js";
import type { TemplateComponent } from "../../contract/template-rules.js";
import {
  type TemplateRejectionReason,
  templateRejectionReasons,
} from "../../contract/vocabulary.js";
import type { Db } from "../db/database.js";
import type { ChannelTable } from "../db/tables/campaigns.js";
import { disconnectChannel } from "../domain/channels.js";
import type { Clock } from "../domain/clock.js";
import { type SecretBox, secretKeyVariable } from "../domain/secret-box.js";
import { channelExists, invalidField, ServiceError } from "../domain/service-error.js";
import { type GraphClient, GraphError, GraphUnreachable } from "./graph-client.js";
import { isRateLimited, isTokenRefused, sendOutcomeForCode } from "./graph-errors.js";
import {
  endsTheBatch,
  notTried,
  type OutboundMessage,
  type SendOutcome,
} from "./message-sender.js";
import type {
  ConnectedNumber,
  MessagingProvider,
  NumberRequest,
  TemplateDecision,
  TemplateReviewOutcome,
  TemplateStatusReport,
  TemplateUnderReview,
} from "./provider.js";

/** What Meta says about a phone number (GET /<phone_number_id>). */
interface NumberProfile {
  display_phone_number: string;
  verified_name: string | null;
  quality_rating: string | null;
}

/** A template as `GET /<waba_id>/message_templates` lists it. */
interface GraphTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  rejected_reason?: string;
}

/** Meta's template statuses mapped to ours; others (IN_APPEAL, PENDING_DELETION…) change nothing. */
function templateStatusFromGraph(
  status: string,
): "approved" | "rejected" | "paused" | "disabled" | "pending" | null {
  switch (status.toUpperCase()) {
    case "APPROVED":
      return "approved";
    case "REJECTED":
      return "rejected";
    case "PAUSED":
      return "paused";
    case "DISABLED":
      return "disabled";
    case "PENDING":
      return "pending";
    default:
      return null;
  }
}

/** Meta's rejection reason as one of ours; an unlisted one (NONE, newer values) is INVALID_FORMAT. */
function rejectionReasonFromGraph(reason: string | undefined): TemplateRejectionReason {
  const upper = (reason ?? "").toUpperCase();
  return (templateRejectionReasons as readonly string[]).includes(upper)
    ? (upper as TemplateRejectionReason)
    : "INVALID_FORMAT";
}

/**
 * What a Graph template status (a webhook's `event`, a listing's `status`) decides, with Meta's
 * rejection reason; null while Meta has not decided or for a status that changes nothing.
 */
export function templateDecisionFromGraph(
  status: string,
  reason: string | null | undefined,
): TemplateDecision | null {
  const ours = templateStatusFromGraph(status);
  if (ours === null || ours === "pending") return null;
  if (ours !== "rejected") return { status: ours };
  return {
    status: "rejected",
    reason: rejectionReasonFromGraph(reason ?? undefined),
    detail:
      reason && reason.toUpperCase() !== "NONE" ? `Meta: ${reason}` : "Meta rejected the template",
  };
}

/** A channel's Graph identity with its opened token (kept in memory only for the call). */
interface CloudCredentials {
  phoneNumberId: string;
  wabaId: string;
  token: string;
}

/** The template message of one recipient, as POST /<phone_number_id>/messages takes it. */
export function templateMessagePayload(message: OutboundMessage): Record<string, unknown> {
  // Shape: https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages
  // (template object, components with text parameters) and
  // https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-message-templates
  const components: Record<string, unknown>[] = [];
  const text = (value: string) => ({ type: "text", text: value });
  const { media, buttons } = message.parameters;
  if (media) {
    components.push({
      type: "header",
      parameters: [{ type: media.format, [media.format]: { link: media.link } }],
    });
  } else if (message.parameters.header.length > 0) {
    components.push({ type: "header", parameters: message.parameters.header.map(text) });
  }
  if (message.parameters.body.length > 0) {
    components.push({ type: "body", parameters: message.parameters.body.map(text) });
  }
  // Buttons: index is a string; a URL's parameter fills its {{1}}, a COPY_CODE's is a coupon_code.
  for (const button of buttons ?? []) {
    components.push({
      type: "button",
      sub_type: button.subType,
      index: String(button.index),
      parameters: [
        button.subType === "url"
          ? text(button.value)
          : { type: "coupon_code", coupon_code: button.value },
      ],
    });
  }
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    to: message.to.replace(/^\+/, ""),
    type: "template",
    template: {
      name: message.templateName,
      language: { code: message.templateLanguage },
      ...(components.length > 0 ? { components } : {}),
    },
    biz_opaque_callback_data: message.recipientId,
  };
}

/**
 * Graph codes that say Meta could not answer now, not that it refused: 1 (unknown error, "try
 * again later"), 2 (service temporarily unavailable), and the application and user rate limits
 * 4, 17, 32 and 613 (besides the send limits isRateLimited knows).
 * https://developers.facebook.com/docs/graph-api/guides/error-handling
 */
const transientCheckCodes = new Set([1, 2, 4, 17, 32, 613]);

/**
 * A check Meta could not answer (unreachable, an outage's 5xx, an answer without a Graph error,
 * a rate limit, whatever its code, when HTTP 429 says so, a transient code) as a 503 to try
 * again; null when Meta did answer.
 */
function checkNotAnswered(error: unknown): ServiceError | null {
  let cause: string;
  if (error instanceof GraphUnreachable) cause = error.message;
  else if (
    error instanceof GraphError &&
    (error.httpStatus >= 500 ||
      error.httpStatus === 429 ||
      error.code === 0 ||
      transientCheckCodes.has(error.code) ||
      isRateLimited(error))
  ) {
    cause = `Graph API answered HTTP ${error.httpStatus}${error.code ? ` with code ${error.code}` : ""}`;
  } else return null;
  return new ServiceError(
    "service_unavailable",
    `${cause}; the number could not be checked, try again.`,
  );
}

/** The Graph check of a number failed: a refused token or id is a 422 naming the field. */
function numberCheckFailure(error: unknown): Error {
  const unanswered = checkNotAnswered(error);
  if (unanswered) return unanswered;
  if (!(error instanceof GraphError)) return error as Error;
  // 190: invalid or expired token; 10 and 200-299: the token lacks a permission.
  if (error.code === 190 || error.code === 10 || (error.code >= 200 && error.code < 300)) {
    return invalidField(
      "access_token",
      `Meta refused the access token (code ${error.code}): use a system user token with whatsapp_business_messaging and whatsapp_business_management`,
    );
  }
  return invalidField(
    "phone_number_id",
    `Meta does not know this phone number id for that token (code ${error.code})`,
  );
}

/**
 * Whether `sealed` is a stored token that `secrets` cannot open: sealed under another
 * RESELLER_SECRET_KEY. Without a key at all nothing is known (the key may come back).
 */
function sealedUnderAnotherKey(secrets: SecretBox | null, sealed: string | null | undefined) {
  if (!secrets || !sealed) return false;
  try {
    secrets.open(sealed);
    return false;
  } catch {
    return true;
  }
}

/**
 * How many cloud channels hold a token the service cannot open: sealed under another key, or
 * any token when no key is set. `serve` says so once at start; a workspace has a few channels.
 */
export async function unopenableChannelCount(db: Db, secrets: SecretBox | null): Promise<number> {
  const rows = await db
    .selectFrom("channels")
    .select("access_token_encrypted")
    .where("provider", "=", "whatsapp_cloud")
    .where("status", "=", "connected")
    .where("access_token_encrypted", "is not", null)
    .execute();
  return rows.filter(
    (row) => !secrets || sealedUnderAnotherKey(secrets, row.access_token_encrypted),
  ).length;
}

/** A field the request's rule (CreateChannelBody) already required; this narrows its type. */
function required(request: NumberRequest, field: "phone_number_id" | "waba_id" | "access_token") {
  const value = request[field];
  if (value === undefined) throw invalidField(field, "is required with provider whatsapp_cloud");
  return value;
}

/**
 * The WhatsApp Cloud API adapter: checks numbers, submits and follows templates, and sends
 * template messages, each as the channel's own access token. Tokens are opened from their
 * sealed form only for the call and never appear in errors or logs.
 */
export class WhatsappCloudProvider implements MessagingProvider {
  readonly kind = "whatsapp_cloud" as const;
  /** The Cloud API has no idempotency keys: a send that may have arrived is never repeated. */
  readonly exactlyOnce = false;

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      graph: GraphClient;
      /** Null when RESELLER_SECRET_KEY is not set: cloud channels cannot be added or used. */
      secrets: SecretBox | null;
      /** How long until a pending template is asked about again (missed webhooks). */
      recheckMs: number;
    },
  ) {}

  /**
   * Refuses a waba_id that is not the number's account: templates go to the WABA and its
   * webhooks are routed by it, so a wrong one would leave every template pending for good.
   */
  private async requireNumberOfWaba(token: string, wabaId: string, phoneNumberId: string) {
    try {
      // Every page: a WABA may hold more numbers than one page.
      // https://developers.facebook.com/docs/whatsapp/business-management-api/manage-phone-numbers
      const pages = this.pages<{ id?: string }>(
        token,
        `${encodeURIComponent(wabaId)}/phone_numbers`,
        { fields: "id" },
      );
      for await (const numbers of pages) {
        if (numbers.some((n) => n.id === phoneNumberId)) return;
      }
    } catch (error) {
      if (!(error instanceof GraphError) || checkNotAnswered(error)) {
        throw numberCheckFailure(error);
      }
      throw invalidField(
        "waba_id",
        `Meta does not know this WhatsApp Business Account id for that token (code ${error.code})`,
      );
    }
    throw invalidField(
      "waba_id",
      `phone number id ${phoneNumberId} is not a number of WhatsApp Business Account ${wabaId}; use the account Meta's WhatsApp Manager shows for it`,
    );
  }

  /**
   * Checks the number with the Graph API (GET /<phone_number_id> as the holder of the token)
   * and seals the token; the workspace's cloud channels share one WABA.
   */
  async connectNumber(workspaceId: string, request: NumberRequest): Promise<ConnectedNumber> {
    const secrets = this.deps.secrets;
    if (!secrets) {
      throw invalidField(
        "provider",
        `whatsapp_cloud channels need ${secretKeyVariable} set on the service (32 bytes, base64: openssl rand -base64 32) to store access tokens encrypted`,
      );
    }
    const phoneNumberId = required(request, "phone_number_id");
    const wabaId = required(request, "waba_id");
    const token = required(request, "access_token");
    const otherWaba = await this.deps.db
      .selectFrom("channels")
      .select(["id", "waba_id"])
      .where("workspace_id", "=", workspaceId)
      .where("provider", "=", "whatsapp_cloud")
      .where("waba_id", "!=", wabaId)
      .executeTakeFirst();
    if (otherWaba) {
      throw invalidField(
        "waba_id",
        `the workspace's cloud channels share one WhatsApp Business Account (${otherWaba.waba_id}, channel ${otherWaba.id})`,
      );
    }
    let profile: Partial<NumberProfile>;
    try {
      // Fields: https://developers.facebook.com/docs/whatsapp/cloud-api/reference/phone-numbers
      profile = await this.deps.graph.get<Partial<NumberProfile>>(token, phoneNumberId, {
        fields: "display_phone_number,verified_name,quality_rating",
      });
    } catch (error) {
      throw numberCheckFailure(error);
    }
    await this.requireNumberOfWaba(token, wabaId, phoneNumberId);
    // Asked only once Meta has accepted the token for this number, so the answer goes to the
    // number's holder, never to whoever guesses its id.
    await this.refuseTakenNumber(workspaceId, phoneNumberId);
    // Meta's word on its own number stands: only its E.164 shape is checked, because Meta's
    // test numbers (+1 555 01…) are not numbers libphonenumber's rules call valid.
    const phone = `+${String(profile.display_phone_number ?? "").replace(/\D/g, "")}`;
    if (!e164Pattern.test(phone)) {
      throw invalidField("phone_number_id", "Meta answered without a usable display phone number");
    }
    return {
      phone,
      verified_name: profile.verified_name ?? null,
      quality_rating: profile.quality_rating ?? null,
      phone_number_id: phoneNumberId,
      waba_id: wabaId,
      access_token_encrypted: secrets.seal(token),
    };
  }

  /**
   * A number is one channel on the whole service. A channel of this workspace that Meta
   * disconnected is connected again with the new token; a channel of this workspace is named;
   * another workspace's is not (api-contract.md: never reveal which), only whose account it is.
   */
  private async refuseTakenNumber(workspaceId: string, phoneNumberId: string): Promise<void> {
    const taken = await this.deps.db
      .selectFrom("channels")
      .innerJoin("workspaces as owner", "owner.id", "channels.workspace_id")
      .innerJoin("workspaces as asking", (join) => join.on("asking.id", "=", workspaceId))
      .select([
        "channels.id",
        "channels.workspace_id",
        "channels.status",
        "channels.access_token_encrypted",
        sql<number>`CASE WHEN owner.reseller_id = asking.reseller_id THEN 1 ELSE 0 END`.as(
          "same_account",
        ),
      ])
      .where("channels.provider", "=", "whatsapp_cloud")
      .where("channels.phone_number_id", "=", phoneNumberId)
      .executeTakeFirst();
    if (!taken) return;
    if (taken.workspace_id === workspaceId && taken.status === "disconnected") return;
    // A token sealed under another RESELLER_SECRET_KEY (the key was lost or changed) can never
    // be sent with again: the channel is disconnected, as Meta's refusal would, and connected
    // again with the new token (docs/whatsapp-cloud.md: "adding the channels again").
    if (
      taken.workspace_id === workspaceId &&
      sealedUnderAnotherKey(this.deps.secrets, taken.access_token_encrypted)
    ) {
      await disconnectChannel(
        this.deps.db,
        this.deps.clock,
        taken.id,
        taken.access_token_encrypted,
      );
      return;
    }
    // A client's workspace token may ask too: another workspace's channel id is not its to know.
    throw channelExists(
      "phone_number_id",
      taken.workspace_id === workspaceId
        ? `as channel ${taken.id}`
        : Number(taken.same_account) === 1
          ? "to another workspace of this account"
          : "to a workspace of another account on this service",
    );
  }

  /** The credentials of a cloud channel, or null when it has none that can be opened. */
  private credentials(channel: ChannelTable): CloudCredentials | null {
    const secrets = this.deps.secrets;
    if (
      !secrets ||
      !channel.access_token_encrypted ||
      !channel.phone_number_id ||
      !channel.waba_id
    ) {
      return null;
    }
    try {
      return {
        phoneNumberId: channel.phone_number_id,
        wabaId: channel.waba_id,
        token: secrets.open(channel.access_token_encrypted),
      };
    } catch {
      return null;
    }
  }

  /**
   * Submits a template to the workspace's WABA on the first call (POST
   * /<waba_id>/message_templates, keeping the Graph id), and afterwards reads its status;
   * `pending` until Meta decides (the webhook usually says so first).
   */
  async reviewTemplate(
    template: TemplateUnderReview,
    channel: ChannelTable | null,
  ): Promise<TemplateReviewOutcome> {
    const recheck = () => ({
      status: "pending" as const,
      checkAgainAt: new Date(this.deps.clock.now().getTime() + this.deps.recheckMs),
    });
    const credentials = channel ? this.credentials(channel) : null;
    if (!credentials) return recheck();
    try {
      let graphId = template.provider_template_id ?? null;
      let status: string;
      let reason: string | undefined;
      if (!graphId) {
        // Body and answer: https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates
        const created = await this.deps.graph.post<{ id: string; status?: string }>(
          credentials.token,
          `${credentials.wabaId}/message_templates`,
          {
            name: template.name,
            language: template.language,
            category: template.category.toUpperCase(),
            components: template.components satisfies TemplateComponent[],
          },
        );
        graphId = String(created.id);
        await this.deps.db
          .updateTable("templates")
          .set({ provider_template_id: graphId })
          .where("id", "=", template.id)
          .execute();
        status = created.status ?? "PENDING";
      } else {
        const found = await this.deps.graph.get<{ status?: string; rejected_reason?: string }>(
          credentials.token,
          graphId,
          { fields: "id,name,status,rejected_reason" },
        );
        status = found.status ?? "PENDING";
        reason = found.rejected_reason;
      }
      const decision = templateDecisionFromGraph(status, reason);
      // Paused or disabled before it was ever approved: the webhook or the sync records it.
      if (decision?.status === "approved" || decision?.status === "rejected") return decision;
      return recheck();
    } catch (error) {
      if (error instanceof GraphError && !template.provider_template_id && error.httpStatus < 500) {
        // Meta refused the submission itself (invalid components, name taken at Meta…); a rate
        // limit or a refused token is asked again later.
        if (!isRateLimited(error) && !isTokenRefused(error)) {
          return {
            status: "rejected",
            reason: "INVALID_FORMAT",
            detail: `Meta refused the submission (code ${error.code}): ${error.details ?? error.message}`,
          };
        }
      }
      // The template waits, pending, for the number to be connected again with a fresh token.
      if (channel && isTokenRefused(error)) {
        await disconnectChannel(
          this.deps.db,
          this.deps.clock,
          channel.id,
          channel.access_token_encrypted,
        );
      }
      if (error instanceof GraphError || error instanceof GraphUnreachable) return recheck();
      throw error;
    }
  }

  /** Every decided template of the channel's WABA as Meta lists it (follows the paging cursors). */
  async templateStatuses(channel: ChannelTable): Promise<TemplateStatusReport[]> {
    const credentials = this.credentials(channel);
    if (!credentials) return [];
    const reports: TemplateStatusReport[] = [];
    const pages = this.pages<GraphTemplate>(
      credentials.token,
      `${credentials.wabaId}/message_templates`,
      { fields: "id,name,language,status,rejected_reason" },
    );
    for await (const templates of pages) {
      for (const graph of templates) {
        const decision = templateDecisionFromGraph(graph.status, graph.rejected_reason);
        if (decision) reports.push({ providerTemplateId: String(graph.id), decision });
      }
    }
    return reports;
  }

  /**
   * A Graph list, a page of 100 at a time, following the paging cursors while the answer names a
   * next page (at most 100 pages). https://developers.facebook.com/docs/graph-api/results
   */
  private async *pages<T>(
    token: string,
    path: string,
    params: Record<string, string>,
  ): AsyncGenerator<T[]> {
    let after: string | undefined;
    for (let page = 0; page < 100; page++) {
      const answer = await this.deps.graph.get<{
        data?: T[];
        paging?: { cursors?: { after?: string }; next?: string };
      }>(token, path, { ...params, limit: "100", ...(after ? { after } : {}) });
      yield answer.data ?? [];
      after = answer.paging?.next ? answer.paging.cursors?.after : undefined;
      if (!after) return;
    }
  }

  /** One POST per message, in order, stopping at a rate limit or a campaign-wide refusal. */
  async send(messages: readonly OutboundMessage[]): Promise<SendOutcome[]> {
    const outcomes: SendOutcome[] = [];
    const channelId = messages[0]?.channelId;
    const channel = channelId
      ? await this.deps.db
          .selectFrom("channels")
          .selectAll()
          .where("id", "=", channelId)
          .executeTakeFirst()
      : undefined;
    const credentials = channel ? this.credentials(channel) : null;
    let wall: SendOutcome | null = null;
    for (const message of messages) {
      if (!credentials) {
        // The channel is left connected: the instance's key may be the wrong one (a pod
        // misconfigured, a rotation half done), and disconnecting every channel it meets would
        // make every workspace add its numbers again. Adding one again replaces its token.
        outcomes.push({
          status: "campaign_failed",
          reason: "channel_credentials_unavailable",
          code: 0,
        });
        continue;
      }
      // After a rate limit or a campaign-wide failure the rest of the batch is not tried.
      if (wall) {
        outcomes.push(notTried(wall));
        continue;
      }
      const outcome = await this.sendOne(credentials, message);
      if (endsTheBatch(outcome)) wall = outcome;
      outcomes.push(outcome);
    }
    return outcomes;
  }

  private async sendOne(
    credentials: CloudCredentials,
    message: OutboundMessage,
  ): Promise<SendOutcome> {
    try {
      // Answer: {"messaging_product":"whatsapp","contacts":[{"input","wa_id"}],"messages":[{"id":"wamid…"}]}
      // https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages
      const answer = await this.deps.graph.post<{ messages?: { id?: string }[] }>(
        credentials.token,
        `${credentials.phoneNumberId}/messages`,
        templateMessagePayload(message),
      );
      const id = answer.messages?.[0]?.id;
      if (!id) return { status: "unknown", detail: "Graph answered without a message id" };
      return { status: "accepted", providerMessageId: id };
    } catch (error) {
      if (error instanceof GraphUnreachable) {
        return error.mayHaveArrived
          ? { status: "unknown", detail: error.message }
          : { status: "backoff", reason: "provider_unreachable", code: 0 };
      }
      if (!(error instanceof GraphError)) throw error;
      // No Graph error in the answer: a 5xx, or a 2xx whose body could not be read, may mean
      // Meta took the message, so it is never sent again by itself.
      const taken = error.httpStatus >= 500 || (error.httpStatus >= 200 && error.httpStatus < 300);
      if (error.code === 0 && taken) {
        return { status: "unknown", detail: `Graph answered HTTP ${error.httpStatus}` };
      }
      // A bare 429 (a proxy or gateway in front of Meta): waited out like Meta's own codes.
      if (error.code === 0 && isRateLimited(error)) {
        return { status: "backoff", reason: "rate_limited", code: 0 };
      }
      return sendOutcomeForCode(error.code);
    }
  }
}
