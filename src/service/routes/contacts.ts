import {
  ContactListQuery,
  ContactListResponse,
  ContactParams,
  ContactResponse,
  TagListResponse,
  UpdateContactBody,
  UpsertContactBody,
} from "../../contract/contacts.js";
import { PageQuery } from "../../contract/pagination.js";
import { WorkspaceIdParams } from "../../contract/workspaces.js";
import type { App } from "../app-types.js";
import { listContacts } from "../domain/contact-listing.js";
import {
  type ContactServices,
  getContact,
  listTags,
  updateContact,
  upsertContact,
} from "../domain/contacts.js";
import { principalOf } from "../plugins/authentication.js";
import { authErrors, bodyErrors, errorResponses, postErrors, sendSerialised } from "./responses.js";

const tags = ["Contacts"];

/** Contacts of a workspace (upsert by phone, get, update, list with search) and its tags. */
export function contactRoutes(app: App, services: ContactServices): void {
  const { db } = services;

  app.get(
    "/api/v1/workspaces/:id/contacts",
    {
      config: { scope: "contacts:read" },
      schema: {
        tags,
        operationId: "listContacts",
        summary: "List contacts, newest first, with search and filters",
        description:
          '`search`: every word must start a word of the name or email, the whole email address, or the phone\'s digits (e.g. `anna schm`, `anna.schmidt@ex`, `+49151`); a phone is also found by its national form (`0151 1234`) and its last digits (`12345678`); letters such as ø, ß and ł match their plain forms (`orsted` finds Ørsted); any text is searched literally. A search counts matches up to 1,000: past that, `total` is 1000 (or the rows up to this page, when more) and `meta.pagination.total_is_lower_bound` is true ("1,000+"); the last page that shows matches, without `next_cursor`, gives the exact total (a page past it, by number, shows none and keeps the bound). `tag` (any case) and `opt_in_status` filter. Paging: `page`/`per_page`, or `cursor` from `meta.pagination.next_cursor` at the same cost on any page.',
        params: WorkspaceIdParams,
        querystring: ContactListQuery,
        response: { 200: ContactListResponse, ...errorResponses(...authErrors, 404, 422) },
      },
    },
    async (request, reply) => {
      const { rows, meta } = await listContacts(
        db,
        principalOf(request),
        request.params.id,
        request.query,
      );
      // Written directly from the JSON the query returns (as the plans are): the per-response
      // schema check and serialisation cost more than the query of a page.
      const data = rows.map((row) => row.json).join(",");
      return sendSerialised(
        reply,
        `{"status":"success","data":[${data}],"meta":${JSON.stringify(meta)}}`,
      );
    },
  );

  app.post(
    "/api/v1/workspaces/:id/contacts",
    {
      config: { scope: "contacts:write" },
      schema: {
        tags,
        operationId: "upsertContact",
        summary: "Create or update the contact with this phone (upsert)",
        description:
          "201 when created, 200 when the contact with that phone was updated. Given fields overwrite: tags are replaced, custom_fields merged (null removes a key). An omitted `opt_in_status` is `not_set` for a new contact and leaves an existing one unchanged; `opted_out` is refused here (use PATCH). A contact who opted out is never re-subscribed by an upsert: `opted_in` is then left unchanged, as are `opted_in_at` and `opt_in_source` (the record of the consent withdrawn), and `meta.notices` says so (only the contact's START or a PATCH giving `opted_in` with an `opt_in_source` re-subscribes). Becoming `opted_in` records `opted_in_at` (now, unless given) and `opt_in_source` (`api` unless given). A new contact counts against the plan's `contacts` limit (409 plan_limit_exceeded).",
        params: WorkspaceIdParams,
        body: UpsertContactBody,
        response: {
          200: ContactResponse,
          201: ContactResponse,
          ...errorResponses(...postErrors, 404),
        },
      },
    },
    async (request, reply) => {
      const { contact, created, notices } = await upsertContact(
        services,
        principalOf(request),
        request.params.id,
        request.body,
      );
      reply.code(created ? 201 : 200);
      return {
        status: "success" as const,
        data: contact,
        meta: notices.length > 0 ? { notices } : {},
      };
    },
  );

  app.get(
    "/api/v1/workspaces/:id/contacts/:contact_id",
    {
      config: { scope: "contacts:read" },
      schema: {
        tags,
        operationId: "getContact",
        summary: "Get a contact",
        params: ContactParams,
        response: { 200: ContactResponse, ...errorResponses(...authErrors, 404) },
      },
    },
    async (request) => {
      const data = await getContact(
        db,
        principalOf(request),
        request.params.id,
        request.params.contact_id,
      );
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.patch(
    "/api/v1/workspaces/:id/contacts/:contact_id",
    {
      config: { scope: "contacts:write" },
      schema: {
        tags,
        operationId: "updateContact",
        summary: "Change a contact's fields or consent",
        description:
          "Only the given fields change: tags replace the list, custom_fields merge (null removes a key), `opt_in_status` takes opted_in, not_set or opted_out (opting out records `opted_out_at`). Re-subscribing a contact who opted out needs `opt_in_source` (422 without it). The phone is the contact's identity and does not change.",
        params: ContactParams,
        body: UpdateContactBody,
        response: {
          200: ContactResponse,
          ...errorResponses(...authErrors, ...bodyErrors, 404, 409, 422),
        },
      },
    },
    async (request) => {
      const data = await updateContact(
        services,
        principalOf(request),
        request.params.id,
        request.params.contact_id,
        request.body,
      );
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.get(
    "/api/v1/workspaces/:id/tags",
    {
      config: { scope: "contacts:read" },
      schema: {
        tags,
        operationId: "listTags",
        summary: "List the workspace's tags with their contact counts, newest first",
        description:
          "Tags are created when a contact first gets them; a tag no contact has is not listed.",
        params: WorkspaceIdParams,
        querystring: PageQuery,
        response: { 200: TagListResponse, ...errorResponses(...authErrors, 404, 422) },
      },
    },
    async (request) => {
      const { data, meta } = await listTags(
        db,
        principalOf(request),
        request.params.id,
        request.query,
      );
      return { status: "success" as const, data, meta };
    },
  );
}
