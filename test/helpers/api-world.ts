import type { TestApp } from "./test-app.js";

/**
 * A workspace with one of every resource, built through the API of a test app, and for each
 * documented endpoint a request that its owner may make: real ids in the path and a valid
 * body. The isolation matrix aims other tokens at these requests; the hostile-input suite
 * starts its mutations from them.
 */
export interface ApiWorld {
  workspaceId: string;
  contactId: string;
  channelId: string;
  templateId: string;
  campaignId: string;
  importId: string;
  planId: string;
  /** Ids of the world's resources (`ws_…`, `ct_…`, …). */
  ids: string[];
  /** Ids and names of the world's resources, none of which another tenant may ever see. */
  secrets: string[];
  /** The path parameters and body that make `operationId` a request its owner may make. */
  requestFor(
    method: string,
    path: string,
    operationId: string | undefined,
  ): {
    url: string;
    body: unknown;
  };
}

const owner = {
  workspace: "Victim Bakery Lindenstrasse",
  email: "owner@victim-bakery.test",
  phone: "+4915112345678",
  importedPhone: "+4915112345679",
  firstName: "Vickywinifred",
  lastName: "Victimsdottir",
  tag: "vip-victim-tag",
  channelPhone: "+4915112340077",
  channelName: "Victim main line",
  template: "victim_news_letter",
  campaign: "Victim spring campaign",
  webhookUrl: "https://crm.victim-bakery.test/hooks",
};

async function ok(
  t: TestApp,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  url: string,
  body?: unknown,
  token?: string,
): Promise<{ id: string } & Record<string, unknown>> {
  const res = await t.request(method, url, { body, ...(token ? { token } : {}) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: { id: string } }).data;
}

const templateBody = (name: string, draft = false) => ({
  name,
  category: "marketing",
  language: "en",
  components: [
    { type: "BODY", text: "Hello {{1}}, fresh bread today.", example: { body_text: [["Ada"]] } },
  ],
  ...(draft ? { draft: true } : {}),
});

/** Builds the world in `t` with its admin token (a reseller token with every scope). */
export async function buildApiWorld(t: TestApp): Promise<ApiWorld> {
  const workspaceId = await t.createWorkspace({
    name: owner.workspace,
    contact_email: owner.email,
  });
  const ws = `/api/v1/workspaces/${workspaceId}`;
  const contact = await ok(t, "POST", `${ws}/contacts`, {
    phone: owner.phone,
    first_name: owner.firstName,
    last_name: owner.lastName,
    email: `vicky@victim-bakery.test`,
    tags: [owner.tag],
    opt_in_status: "opted_in",
  });
  const channel = await ok(t, "POST", `${ws}/channels`, {
    phone: owner.channelPhone,
    name: owner.channelName,
  });
  const template = await ok(t, "POST", `${ws}/templates`, templateBody(owner.template));
  await ok(t, "POST", `/api/v1/sandbox/templates/${template.id}/review`, { decision: "approve" });
  const campaignBody = {
    name: owner.campaign,
    channel_id: channel.id,
    template_name: owner.template,
    template_language: "en",
    audience: { all: true },
    variable_mapping: { "1": "first_name" },
  };
  const campaign = await ok(t, "POST", `${ws}/campaigns`, campaignBody);
  const csv = Buffer.from(`phone,first_name\n${owner.importedPhone},Importa\n`).toString("base64");
  const imported = await ok(t, "POST", `${ws}/contacts/import`, { csv });
  await t.runJobs();
  const plans = (await t.request("GET", "/api/v1/plans")).json() as {
    data: Record<string, { id: number }[]>;
  };
  const planId = String(Object.values(plans.data).flat()[0]?.id ?? 1);

  // Resources that an owner's request uses up (deleted, submitted, launched, revoked, decided).
  const draftToSubmit = await ok(
    t,
    "POST",
    `${ws}/templates`,
    templateBody("victim_draft_a", true),
  );
  const draftToDelete = await ok(
    t,
    "POST",
    `${ws}/templates`,
    templateBody("victim_draft_b", true),
  );
  const pendingToReview = await ok(t, "POST", `${ws}/templates`, templateBody("victim_pending"));
  const campaignToLaunch = await ok(t, "POST", `${ws}/campaigns`, {
    ...campaignBody,
    name: "Victim launch campaign",
  });
  const workspaceToken = await ok(t, "POST", `${ws}/tokens`, {
    name: "victim pricing page",
    scopes: ["plans:read"],
  });
  const resellerToken = await ok(t, "POST", "/api/v1/tokens", {
    name: "victim deploy key",
    scopes: ["plans:read"],
  });
  // Webhooks, events and campaign control (pause, resume, cancel) and archiving.
  const webhookEndpoint = await ok(t, "POST", "/api/v1/webhook-endpoints", {
    url: owner.webhookUrl,
  });
  const endpointToDelete = await ok(t, "POST", "/api/v1/webhook-endpoints", {
    url: `${owner.webhookUrl}/old`,
  });
  const workspaceToArchive = await t.createWorkspace({
    name: "Victim Bakery archive",
    contact_email: owner.email,
  });
  const launched = async (name: string) => {
    const created = await ok(t, "POST", `${ws}/campaigns`, { ...campaignBody, name });
    await ok(t, "POST", `${ws}/campaigns/${created.id}/launch`);
    return created;
  };
  const campaignToPause = await launched("Victim pause campaign");
  const campaignToResume = await launched("Victim resume campaign");
  await ok(t, "POST", `${ws}/campaigns/${campaignToResume.id}/pause`);
  const campaignToCancel = await ok(t, "POST", `${ws}/campaigns`, {
    ...campaignBody,
    name: "Victim cancel campaign",
  });
  const events = (await t.request("GET", `/api/v1/events?workspace_id=${workspaceId}`)).json()
    .data as { id: string }[];
  const eventId = events[0]?.id ?? "";

  const ids: Record<string, string> = {
    contact_id: contact.id,
    import_id: imported.id,
    template_id: template.id,
    campaign_id: campaign.id,
    token_id: workspaceToken.id,
    channel_id: channel.id,
  };
  /** Path parameters an owner's request of this operation uses up get a resource of their own. */
  const consumed: Record<string, Record<string, string>> = {
    submitTemplate: { template_id: draftToSubmit.id },
    deleteTemplate: { template_id: draftToDelete.id },
    reviewTemplate: { template_id: pendingToReview.id },
    launchCampaign: { campaign_id: campaignToLaunch.id },
    pauseCampaign: { campaign_id: campaignToPause.id },
    resumeCampaign: { campaign_id: campaignToResume.id },
    cancelCampaign: { campaign_id: campaignToCancel.id },
    archiveWorkspace: { id: workspaceToArchive },
    deleteWebhookEndpoint: { id: endpointToDelete.id },
  };
  /** Valid bodies by operation; others get one built from the document by the caller. */
  const bodies: Record<string, unknown> = {
    createToken: { name: "ci", scopes: ["plans:read"] },
    createWorkspace: { name: "Another client", contact_email: "a@b.test", send_invitation: false },
    updateWorkspace: { name: "Victim Bakery renamed" },
    createWorkspaceToken: { name: "widget", scopes: ["plans:read"] },
    upsertContact: { phone: owner.phone, first_name: owner.firstName },
    updateContact: { tags: [owner.tag, "second"] },
    importContacts: { csv, duplicate_handling: "update" },
    createTemplate: templateBody("victim_other"),
    reviewTemplate: { decision: "approve" },
    createChannel: { phone: "+4915112340078", name: "Second line" },
    createCampaign: { ...campaignBody, name: "Victim autumn campaign" },
    previewCampaign: campaignBody,
    simulateInboundMessage: { workspace_id: workspaceId, from: owner.phone, text: "hello" },
    createWebhookEndpoint: { url: "https://crm.example.test/hooks" },
    updateWebhookEndpoint: { description: "Victim CRM" },
    redeliverEvent: {},
  };

  const worldIds = [
    workspaceId,
    contact.id,
    channel.id,
    template.id,
    campaign.id,
    imported.id,
    workspaceToken.id,
    resellerToken.id,
    draftToSubmit.id,
    draftToDelete.id,
    pendingToReview.id,
    campaignToLaunch.id,
    webhookEndpoint.id,
    endpointToDelete.id,
    workspaceToArchive,
    campaignToPause.id,
    campaignToResume.id,
    campaignToCancel.id,
    eventId,
  ];
  const secrets = [
    ...worldIds,
    owner.workspace,
    owner.email,
    owner.phone,
    owner.importedPhone,
    owner.firstName,
    owner.lastName,
    owner.tag,
    owner.channelPhone,
    owner.channelName,
    owner.template,
    owner.campaign,
    "victim pricing page",
    "victim deploy key",
    owner.webhookUrl,
  ];

  return {
    workspaceId,
    contactId: contact.id,
    channelId: channel.id,
    templateId: template.id,
    campaignId: campaign.id,
    importId: imported.id,
    planId,
    ids: worldIds,
    secrets,
    requestFor(method, path, operationId) {
      const params: Record<string, string> = {
        ...ids,
        id: path.startsWith("/api/v1/plans/")
          ? planId
          : path.startsWith("/api/v1/tokens/")
            ? resellerToken.id
            : path.startsWith("/api/v1/webhook-endpoints/")
              ? webhookEndpoint.id
              : path.startsWith("/api/v1/events/")
                ? eventId
                : workspaceId,
        ...(operationId === "revokeWorkspaceToken" ? { token_id: workspaceToken.id } : {}),
        ...(operationId ? consumed[operationId] : {}),
      };
      const url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
        const value = params[name];
        if (value === undefined) throw new Error(`no value for {${name}} in ${method} ${path}`);
        return encodeURIComponent(value);
      });
      return { url, body: operationId ? bodies[operationId] : undefined };
    },
  };
}
