import { z } from "zod";
import {
  CampaignCreateResponse,
  CampaignLaunchResponse,
  CampaignListQuery,
  CampaignListResponse,
  CampaignPreviewResponse,
  CampaignResponse,
  CampaignStatsResponse,
  CreateCampaignBody,
} from "../../contract/campaigns.js";
import { WorkspaceIdParams } from "../../contract/workspaces.js";
import type { App } from "../app-types.js";
import { cancelCampaign, pauseCampaign, resumeCampaign } from "../domain/campaign-control.js";
import {
  campaignStats,
  createCampaign,
  getCampaign,
  launchCampaign,
  listCampaigns,
  previewCampaign,
} from "../domain/campaigns.js";
import { principalOf } from "../plugins/authentication.js";
import type { Services } from "../services.js";
import { authErrors, errorResponses, postErrors } from "./responses.js";

const tags = ["Campaigns"];
const CampaignParams = z.object({
  id: z.string().describe("The workspace's id."),
  campaign_id: z.string().describe("The campaign's id (`cmp_…`)."),
});

/** Broadcast campaigns: create, preview, list, get, launch, pause/resume/cancel and live statistics. */
export function campaignRoutes(app: App, services: Services): void {
  const { db } = services;

  app.get(
    "/api/v1/workspaces/:id/campaigns",
    {
      config: { scope: "campaigns:read" },
      schema: {
        tags,
        operationId: "listCampaigns",
        summary: "List campaigns, newest first, optionally of one status",
        params: WorkspaceIdParams,
        querystring: CampaignListQuery,
        response: { 200: CampaignListResponse, ...errorResponses(...authErrors, 404, 422) },
      },
    },
    async (request) => {
      const page = await listCampaigns(db, principalOf(request), request.params.id, request.query);
      return { status: "success" as const, data: page.rows, meta: { pagination: page.pagination } };
    },
  );

  app.post(
    "/api/v1/workspaces/:id/campaigns",
    {
      config: { scope: "campaigns:write" },
      schema: {
        tags,
        operationId: "createCampaign",
        summary: "Create a campaign (scheduled with scheduled_at, otherwise a draft)",
        description:
          "Checks: the channel exists; the template of that name and language is approved (else 422 template_not_approved); the audience has exactly one option; variable_mapping covers every variable of the header and body, and holds no other key (a URL button ending in {{1}} or a COPY_CODE button, key button.<index>, left out sends the template's example in every message, and `meta.notices` says so); a media header's template example is an http(s) link; scheduled_at is in the future. Only opted_in contacts are ever messaged.",
        params: WorkspaceIdParams,
        body: CreateCampaignBody,
        response: { 201: CampaignCreateResponse, ...errorResponses(...postErrors, 404) },
      },
    },
    async (request, reply) => {
      const { campaign, notices } = await createCampaign(
        services,
        principalOf(request),
        request.params.id,
        request.body,
      );
      return reply.code(201).send({
        status: "success" as const,
        data: campaign,
        meta: notices.length > 0 ? { notices } : {},
      });
    },
  );

  app.post(
    "/api/v1/workspaces/:id/campaigns/preview",
    {
      config: { scope: "campaigns:read" },
      schema: {
        tags,
        operationId: "previewCampaign",
        summary: "What a campaign body would send now, without creating it",
        description:
          "Runs the create checks, then counts the audience by consent and renders the template text. Creates nothing.",
        params: WorkspaceIdParams,
        body: CreateCampaignBody,
        response: { 200: CampaignPreviewResponse, ...errorResponses(...postErrors, 404) },
      },
    },
    async (request) => {
      const { preview, notices } = await previewCampaign(
        services,
        principalOf(request),
        request.params.id,
        request.body,
      );
      return {
        status: "success" as const,
        data: preview,
        meta: notices.length > 0 ? { notices } : {},
      };
    },
  );

  app.get(
    "/api/v1/workspaces/:id/campaigns/:campaign_id",
    {
      config: { scope: "campaigns:read" },
      schema: {
        tags,
        operationId: "getCampaign",
        summary: "Get one campaign",
        params: CampaignParams,
        response: { 200: CampaignResponse, ...errorResponses(...authErrors, 404) },
      },
    },
    async (request) => {
      const data = await getCampaign(
        db,
        principalOf(request),
        request.params.id,
        request.params.campaign_id,
      );
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.post(
    "/api/v1/workspaces/:id/campaigns/:campaign_id/launch",
    {
      config: { scope: "campaigns:write" },
      schema: {
        tags,
        operationId: "launchCampaign",
        summary: "Launch a draft campaign now",
        description:
          "The campaign becomes `running` and sending starts at once; 409 campaign_not_draft for any other status, 409 plan_limit_exceeded when the month's message quota cannot carry its audience. When no contact of the audience has opted in, `meta.notices` says the campaign messages no one.",
        params: CampaignParams,
        response: { 200: CampaignLaunchResponse, ...errorResponses(...postErrors, 404) },
      },
    },
    async (request) => {
      const { campaign, notices } = await launchCampaign(
        services,
        principalOf(request),
        request.params.id,
        request.params.campaign_id,
      );
      return {
        status: "success" as const,
        data: campaign,
        meta: notices.length > 0 ? { notices } : {},
      };
    },
  );

  app.get(
    "/api/v1/workspaces/:id/campaigns/:campaign_id/stats",
    {
      config: { scope: "campaigns:read" },
      schema: {
        tags,
        operationId: "getCampaignStats",
        summary: "Live delivery and engagement statistics",
        description:
          "`sent`, `delivered` and `read` are a cumulative funnel; at the end `sent + failed` equals the recipients with consent. Kept as outcomes arrive, so reading them is cheap.",
        params: CampaignParams,
        response: { 200: CampaignStatsResponse, ...errorResponses(...authErrors, 404) },
      },
    },
    async (request) => {
      const data = await campaignStats(
        db,
        principalOf(request),
        request.params.id,
        request.params.campaign_id,
      );
      return { status: "success" as const, data, meta: {} };
    },
  );

  const controls = [
    {
      move: "pause",
      act: pauseCampaign,
      operationId: "pauseCampaign",
      summary: "Pause a running or scheduled campaign",
      description:
        "The campaign becomes `paused`: the batch in flight finishes, nothing more is sent until it is resumed. 409 campaign_state_conflict from any other status.",
    },
    {
      move: "resume",
      act: resumeCampaign,
      operationId: "resumeCampaign",
      summary: "Resume a paused campaign",
      description:
        "The campaign becomes `running` again, or `scheduled` when it never started and its scheduled time is still ahead. No recipient gets a second message. 409 campaign_state_conflict unless paused; 409 plan_limit_exceeded, the campaign left paused, when the month's message quota cannot carry the messages still to send.",
    },
    {
      move: "cancel",
      act: cancelCampaign,
      operationId: "cancelCampaign",
      summary: "Cancel a campaign that has not ended",
      description:
        "From draft, scheduled, running or paused to `cancelled`: nothing more is sent, and recipients not yet sent count as `cancelled` in the stats. 409 campaign_state_conflict from completed, failed or cancelled.",
    },
  ] as const;
  for (const control of controls) {
    app.post(
      `/api/v1/workspaces/:id/campaigns/:campaign_id/${control.move}`,
      {
        config: { scope: "campaigns:write" },
        schema: {
          tags,
          operationId: control.operationId,
          summary: control.summary,
          description: control.description,
          params: CampaignParams,
          response: { 200: CampaignResponse, ...errorResponses(...postErrors, 404) },
        },
      },
      async (request) => {
        const data = await control.act(
          services,
          principalOf(request),
          request.params.id,
          request.params.campaign_id,
        );
        return { status: "success" as const, data, meta: {} };
      },
    );
  }
}
