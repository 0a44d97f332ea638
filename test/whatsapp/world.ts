import { Writable } from "node:stream";
import pino from "pino";
import { expect } from "vitest";
import { CampaignStats } from "../../src/contract/campaigns.js";
import { FakeGraph } from "../helpers/fake-graph.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

export const accessToken = "EAAG-fake-system-user-token-4f7c2a9b";
export const phoneNumberId = "106540352242922";
export const wabaId = "102290129340398";
export const appSecret = "fake-app-secret";
export const verifyToken = "let-meta-in";
export const secretKey = Buffer.alloc(32, 7).toString("base64");

/** A service listening on loopback with the fake Graph API behind it, and every log line kept. */
export async function cloudWorld(options: { secretKey?: string | null } = {}) {
  const graph = new FakeGraph();
  const graphUrl = await graph.start();
  graph.addNumber(phoneNumberId, {
    token: accessToken,
    wabaId,
    display: "+49 1511 2340000",
    verifiedName: "Acme Shop",
    quality: "GREEN",
  });
  const logs: string[] = [];
  const logger = pino(
    { level: "trace" },
    new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    }),
  );
  const t: TestApp = await startTestApp({
    whatsapp: {
      graphUrl,
      secretKey: options.secretKey === null ? undefined : (options.secretKey ?? secretKey),
      appSecret,
      verifyToken,
    },
    logger,
  });
  const address = await t.app.listen({ port: 0, host: "127.0.0.1" });
  graph.webhookUrl = `${address}/webhooks/whatsapp`;
  graph.appSecret = appSecret;
  const ws = await t.createWorkspace({ plan_id: "2" });
  const base = `/api/v1/workspaces/${ws}`;
  const post = async (path: string, body?: unknown, status = 201) => {
    const res = await t.request("POST", `${base}${path}`, { body });
    expect(res.statusCode, res.body).toBe(status);
    return res.json().data;
  };
  const get = async (path: string) => {
    const res = await t.request("GET", `${base}${path}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };
  const connect = () =>
    post("/channels", {
      provider: "whatsapp_cloud",
      name: "Shop",
      phone_number_id: phoneNumberId,
      waba_id: wabaId,
      access_token: accessToken,
    });
  /** Delivers a webhook, checks the 200, and runs the job that applies it. */
  const deliver = async (payload: unknown) => {
    const answer = await graph.deliver(payload);
    expect(answer.status, answer.body).toBe(200);
    await t.runJobs();
  };
  /** Creates a template, lets the review job submit it to Meta, and answers it with Meta's id. */
  const submitTemplate = async (body: Record<string, unknown> = {}) => {
    const template = await post("/templates", {
      name: "spring_news",
      category: "marketing",
      language: "en_US",
      components: [
        {
          type: "HEADER",
          format: "TEXT",
          text: "News for {{1}}!",
          example: { header_text: ["Ada"] },
        },
        {
          type: "BODY",
          text: "Hello {{1}}, your code is {{2}}.",
          example: { body_text: [["Ada", "A-1"]] },
        },
      ],
      ...body,
    });
    t.clock.advance(5000);
    await t.runJobs();
    const graphId = graph.submittedTemplates().find((g) => g.name === template.name)?.id;
    return { template, graphId: graphId ?? "" };
  };
  const approvedTemplate = async () => {
    const { template, graphId } = await submitTemplate();
    await deliver(templateApproval(graphId));
    return template;
  };
  const templateApproval = (graphId: string) => ({
    object: "whatsapp_business_account",
    entry: [
      {
        id: wabaId,
        time: 1732270001,
        changes: [
          {
            field: "message_template_status_update",
            value: { event: "APPROVED", message_template_id: Number(graphId), reason: "NONE" },
          },
        ],
      },
    ],
  });
  const contact = (phone: string, extra: Record<string, unknown> = {}) =>
    post("/contacts", { phone, opt_in_status: "opted_in", ...extra });
  const campaign = async (channelId: string, extra: Record<string, unknown> = {}) => {
    const draft = await post("/campaigns", {
      name: "Spring launch",
      channel_id: channelId,
      template_name: "spring_news",
      template_language: "en_US",
      audience: { all: true },
      variable_mapping: { "1": "first_name", "2": "custom.code" },
      ...extra,
    });
    await post(`/campaigns/${draft.id}/launch`, undefined, 200);
    await t.runJobs();
    return draft as { id: string };
  };
  const stats = async (id: string) =>
    CampaignStats.parse((await t.request("GET", `${base}/campaigns/${id}/stats`)).json().data);
  /** Meta issues the number `token`: the one stored before is refused from now on (code 190). */
  const newTokenAtMeta = (token: string) =>
    graph.addNumber(phoneNumberId, {
      token,
      wabaId,
      display: "+49 1511 2340000",
      verifiedName: "Acme Shop",
    });
  const close = async () => {
    await t.close();
    await graph.stop();
  };
  return {
    t,
    graph,
    logs,
    ws,
    base,
    post,
    get,
    connect,
    deliver,
    submitTemplate,
    approvedTemplate,
    contact,
    campaign,
    stats,
    newTokenAtMeta,
    close,
  };
}

export type CloudWorld = Awaited<ReturnType<typeof cloudWorld>>;
