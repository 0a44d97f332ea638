import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for Meta's Graph API on loopback: a real HTTP server answering the WhatsApp Cloud
 * API calls the service makes with the documented shapes, recording every request, and posting
 * signed webhooks back to the service. Shapes follow
 * https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages (send),
 * https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates (templates),
 * https://developers.facebook.com/docs/whatsapp/cloud-api/reference/phone-numbers (numbers),
 * https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes (errors) and
 * https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples (webhooks).
 */

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  body: unknown;
}

interface FakeNumber {
  token: string;
  wabaId: string;
  display_phone_number: string;
  verified_name: string;
  quality_rating: string;
}

interface FakeTemplate {
  id: string;
  wabaId: string;
  name: string;
  language: string;
  category: string;
  components: unknown;
  status: string;
  rejected_reason: string;
}

/** Meta's error body: {"error": {"message", "type", "code", "error_data": {"details"}, "fbtrace_id"}}. */
export function graphError(code: number, message: string) {
  return {
    error: {
      message,
      type: code === 190 ? "OAuthException" : "OAuthException",
      code,
      error_data: { messaging_product: "whatsapp", details: message },
      fbtrace_id: "AbCdEfFakeTrace",
    },
  };
}

export class FakeGraph {
  readonly requests: RecordedRequest[] = [];
  private readonly numbers = new Map<string, FakeNumber>();
  private readonly templates = new Map<string, FakeTemplate>();
  /** Error codes the next sends to a number meet, in order (then success). */
  private readonly sendErrors = new Map<string, number[]>();
  /** Numbers whose send never gets an answer (the connection is dropped). */
  readonly silentFor = new Set<string>();
  /** Numbers whose send is taken but answered 200 with a body that is not JSON (a proxy's page). */
  readonly garbledFor = new Set<string>();
  /**
   * HTTP statuses the next requests meet with a plain-text body (a proxy's answer): sends to a
   * number (keyed by it), or template submissions (keyed `message_templates`).
   */
  private readonly bareAnswers = new Map<string, number[]>();
  /** Runs before each send is answered (a test acting while a message is on its way). */
  beforeSendAnswer: ((to: string) => Promise<void>) | undefined;
  private server: Server | undefined;
  private sequence = 0;
  /** Where signed webhooks go (the service's /webhooks/whatsapp). */
  webhookUrl = "";
  appSecret = "";

  /** Starts listening on 127.0.0.1 and answers the Graph base URL (with version). */
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      void this.handle(req, res);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v21.0`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** A number Meta knows, reachable with `token`. */
  addNumber(
    phoneNumberId: string,
    details: {
      token: string;
      wabaId: string;
      display: string;
      verifiedName: string;
      quality?: string;
    },
  ): void {
    this.numbers.set(phoneNumberId, {
      token: details.token,
      wabaId: details.wabaId,
      display_phone_number: details.display,
      verified_name: details.verifiedName,
      quality_rating: details.quality ?? "GREEN",
    });
  }

  /** Makes the next sends to `to` (or `message_templates` submissions) answer these statuses bare. */
  answerBare(key: string, ...statuses: number[]): void {
    this.bareAnswers.set(key, [...(this.bareAnswers.get(key) ?? []), ...statuses]);
  }

  private bareAnswer(key: string, res: ServerResponse): boolean {
    const status = this.bareAnswers.get(key)?.shift();
    if (status === undefined) return false;
    res.writeHead(status, { "content-type": "text/plain" });
    res.end("Too Many Requests");
    return true;
  }

  private readonly pathAnswers = new Map<string, { status: number; body: string | object }[]>();

  /**
   * Makes the next requests to `path` (as `/<id>` or `/<id>/<edge>`, without the version)
   * answer these, in order, before any other rule: a string as an HTML page, an object as JSON.
   */
  answerPath(path: string, ...answers: { status: number; body: string | object }[]): void {
    this.pathAnswers.set(path, [...(this.pathAnswers.get(path) ?? []), ...answers]);
  }

  /** Makes the next sends to `to` (E.164 without +) fail with these Graph codes, in order. */
  failSends(to: string, ...codes: number[]): void {
    this.sendErrors.set(to, [...(this.sendErrors.get(to) ?? []), ...codes]);
  }

  /** Every template submitted so far. */
  submittedTemplates(): FakeTemplate[] {
    return [...this.templates.values()];
  }

  /** Changes a template's status at Meta without telling anyone (a missed webhook). */
  setTemplateStatus(id: string, status: string, reason = "NONE"): void {
    const template = this.templates.get(id);
    if (template) {
      template.status = status;
      template.rejected_reason = reason;
    }
  }

  /** The message sends received, in order. */
  sends(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === "POST" && r.path.endsWith("/messages"));
  }

  /** POSTs a webhook body to the service, signed with the app secret unless told otherwise. */
  async deliver(
    payload: unknown,
    options: { signature?: string | null; raw?: string; contentType?: string | null } = {},
  ): Promise<{ status: number; body: string }> {
    const raw = options.raw ?? JSON.stringify(payload);
    const signature =
      options.signature === undefined
        ? `sha256=${createHmac("sha256", this.appSecret).update(raw).digest("hex")}`
        : options.signature;
    const response = await fetch(this.webhookUrl, {
      method: "POST",
      headers: {
        ...(options.contentType === null
          ? {}
          : { "content-type": options.contentType ?? "application/json" }),
        ...(signature === null ? {} : { "x-hub-signature-256": signature }),
      },
      body: raw,
    });
    return { status: response.status, body: await response.text() };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname.replace(/^\/v\d+\.\d+/, "");
    const request: RecordedRequest = {
      method: req.method ?? "GET",
      path,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
      body: text ? JSON.parse(text) : undefined,
    };
    this.requests.push(request);
    const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const forced = this.pathAnswers.get(path)?.shift();
    if (forced) {
      if (typeof forced.body !== "string") return answer(forced.status, forced.body);
      res.writeHead(forced.status, { "content-type": "text/html" });
      res.end(forced.body);
      return;
    }
    const segments = path.split("/").filter(Boolean);
    const [id, edge] = segments;
    const number = id ? this.numbers.get(id) : undefined;
    const wabaToken = [...this.numbers.values()].find((n) => n.wabaId === id)?.token;
    const knownToken = [...this.numbers.values()].some((n) => n.token === token);
    if (!knownToken) {
      return answer(401, graphError(190, "Error validating access token: Session has expired."));
    }
    if (request.method === "GET" && number && !edge) {
      if (number.token !== token) return answer(400, graphError(100, "Unsupported get request."));
      return answer(200, {
        id,
        display_phone_number: number.display_phone_number,
        verified_name: number.verified_name,
        quality_rating: number.quality_rating,
      });
    }
    if (request.method === "POST" && number && edge === "messages") {
      const body = request.body as { to: string };
      if (this.silentFor.has(body.to)) {
        req.socket.destroy();
        return;
      }
      await this.beforeSendAnswer?.(body.to);
      if (this.bareAnswer(body.to, res)) return;
      if (this.garbledFor.has(body.to)) {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html><body>OK</body></html>");
        return;
      }
      const queued = this.sendErrors.get(body.to);
      const code = queued?.shift();
      if (code !== undefined) {
        return answer(code === 190 ? 401 : 400, graphError(code, `(#${code}) fake error`));
      }
      this.sequence += 1;
      return answer(200, {
        messaging_product: "whatsapp",
        contacts: [{ input: body.to, wa_id: body.to }],
        messages: [{ id: `wamid.FAKE${String(this.sequence).padStart(6, "0")}` }],
      });
    }
    if (request.method === "GET" && id && wabaToken && edge === "phone_numbers") {
      if (wabaToken !== token) return answer(400, graphError(100, "Unsupported get request."));
      const data = [...this.numbers.entries()]
        .filter(([, n]) => n.wabaId === id)
        .map(([numberId]) => ({ id: numberId }));
      // Cursor paging as Graph's: `limit` per page, `after` the cursor of the page before.
      const limit = Number(request.query.limit ?? 25);
      const start = Number(request.query.after ?? 0);
      const more = start + limit < data.length;
      return answer(200, {
        data: data.slice(start, start + limit),
        paging: {
          cursors: { before: String(start), after: String(start + limit) },
          ...(more
            ? { next: `https://graph.fake/${id}/phone_numbers?after=${start + limit}` }
            : {}),
        },
      });
    }
    if (id && wabaToken && edge === "message_templates") {
      if (wabaToken !== token) return answer(400, graphError(100, "Unsupported request."));
      if (request.method === "POST") {
        if (this.bareAnswer("message_templates", res)) return;
        const body = request.body as FakeTemplate;
        this.sequence += 1;
        const template: FakeTemplate = {
          id: String(900000 + this.sequence),
          wabaId: id,
          name: body.name,
          language: body.language,
          category: body.category,
          components: body.components,
          status: "PENDING",
          rejected_reason: "NONE",
        };
        this.templates.set(template.id, template);
        return answer(200, { id: template.id, status: "PENDING", category: body.category });
      }
      const data = [...this.templates.values()]
        .filter((t) => t.wabaId === id)
        .map(({ id: tid, name, language, status, rejected_reason }) => ({
          id: tid,
          name,
          language,
          status,
          rejected_reason,
        }));
      return answer(200, { data, paging: { cursors: { before: "MAZDZD", after: "MjQZD" } } });
    }
    const template = id ? this.templates.get(id) : undefined;
    if (request.method === "GET" && template) {
      return answer(200, {
        id: template.id,
        name: template.name,
        status: template.status,
        rejected_reason: template.rejected_reason,
      });
    }
    return answer(400, graphError(100, `Unsupported ${request.method} request to ${path}`));
  }
}

/** A `messages` webhook with statuses, as Meta posts it. */
export function statusWebhook(
  phoneNumberId: string,
  statuses: {
    id: string;
    status: "sent" | "delivered" | "read" | "failed";
    to: string;
    recipientId?: string;
    errorCode?: number;
  }[],
) {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "WABA_ID_IGNORED_HERE",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550001111", phone_number_id: phoneNumberId },
              statuses: statuses.map((s) => ({
                id: s.id,
                status: s.status,
                timestamp: "1732270000",
                recipient_id: s.to,
                ...(s.recipientId ? { biz_opaque_callback_data: s.recipientId } : {}),
                ...(s.errorCode
                  ? { errors: [{ code: s.errorCode, title: "fake", message: "fake" }] }
                  : {}),
              })),
            },
          },
        ],
      },
    ],
  };
}

/** A `messages` webhook with one inbound text message. */
export function inboundWebhook(phoneNumberId: string, from: string, text: string, id: string) {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "WABA",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550001111", phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: "Someone" }, wa_id: from }],
              messages: [{ from, id, timestamp: "1732270000", type: "text", text: { body: text } }],
            },
          },
        ],
      },
    ],
  };
}

/** A `message_template_status_update` webhook. */
export function templateStatusWebhook(
  wabaId: string,
  templateId: string,
  event: string,
  reason = "NONE",
  time = 1732270000,
) {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: wabaId,
        time,
        changes: [
          {
            field: "message_template_status_update",
            value: {
              event,
              message_template_id: Number(templateId),
              message_template_name: "any",
              message_template_language: "en",
              reason,
            },
          },
        ],
      },
    ],
  };
}
