import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { App } from "../app-types.js";
import { otherBodyLimitBytes } from "../body-limits.js";
import { callApi } from "../dashboard/api-proxy.js";
import { streamCampaignStats } from "../dashboard/campaign-stream.js";
import { dashboardCsp, dashboardShell, escapeHtml, simplePage } from "../dashboard/page.js";
import {
  type DashboardSession,
  DashboardSessions,
  readCookie,
  sessionCookie,
  sessionCookieName,
  signInLinkLifetimeText,
} from "../dashboard/sessions.js";
import { publicFile, type StaticFile, vendorFile } from "../dashboard/static-files.js";
import { ServiceError } from "../domain/service-error.js";
import type { Services } from "../services.js";

/** The header every state-changing dashboard call carries; a cross-site form cannot send it. */
export const dashboardRequestHeader = "x-reseller-dashboard";

const sessionsByApp = new WeakMap<object, DashboardSessions>();

/**
 * A one-time sign-in link to the dashboard of the service's first reseller account, for
 * `serve` to print: it works once, within ten minutes, and then is worthless.
 */
export async function dashboardSignInLink(app: App, baseUrl: string): Promise<string> {
  const sessions = sessionsByApp.get(app);
  if (!sessions) throw new Error("the dashboard routes are not installed");
  const code = await sessions.createSignInCode();
  return `${baseUrl.replace(/\/+$/, "")}/dashboard/sign-in?code=${code}`;
}

const hidden = { hide: true } as const;

/**
 * Whether the session cookie is `Secure`: the request came over HTTPS, or the service's public
 * URL is HTTPS, as behind a proxy that ends TLS and forwards plain HTTP (operations.md).
 */
function isSecure(request: FastifyRequest, publicUrl: () => string): boolean {
  return request.protocol === "https" || publicUrl().startsWith("https:");
}

function sendFile(reply: FastifyReply, file: StaticFile | null): FastifyReply {
  if (!file) throw new ServiceError("not_found", "No such dashboard file.");
  return reply
    .header("content-type", file.contentType)
    .header("cache-control", "no-cache")
    .header("x-content-type-options", "nosniff")
    .send(file.body);
}

function htmlPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("content-security-policy", dashboardCsp)
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "no-referrer")
    .header("cache-control", "no-store")
    .send(html);
}

const SignInBody = z.strictObject({
  token: z.string({ error: "token must be a reseller token (rsk_…)" }).min(1).max(512),
});

/**
 * `/dashboard`: the page, its files, sign-in (a reseller token, or the one-time link `serve`
 * prints) to an HttpOnly session cookie, `/dashboard/api/*` (the public API called with the
 * session's token) and a Server-Sent Events stream of a campaign's stats.
 */
export function dashboardRoutes(app: App, services: Services): void {
  const sessions = new DashboardSessions(services);
  sessionsByApp.set(app, sessions);
  const streams = new Set<() => void>();
  // Open streams would hold the server open: end them before it closes.
  app.addHook("preClose", async () => {
    for (const end of streams) end();
  });

  const sessionOf = (request: FastifyRequest) =>
    sessions.find(readCookie(request.headers.cookie, sessionCookieName));
  const requireSession = async (request: FastifyRequest) => {
    const session = await sessionOf(request);
    if (!session) {
      throw new ServiceError("unauthenticated", "Sign in to the dashboard first.");
    }
    return session;
  };

  app.get("/dashboard", { schema: hidden }, async (_request, reply) =>
    htmlPage(reply, 200, dashboardShell()),
  );
  app.get("/dashboard/", { schema: hidden }, async (_request, reply) =>
    reply.redirect("/dashboard", 301),
  );
  app.get<{ Params: { name: string } }>(
    "/dashboard/assets/:name",
    { schema: hidden },
    async (request, reply) => sendFile(reply, await publicFile(request.params.name)),
  );
  app.get<{ Params: { name: string } }>(
    "/dashboard/vendor/:name",
    { schema: hidden },
    async (request, reply) => sendFile(reply, await vendorFile(request.params.name)),
  );

  app.post(
    "/dashboard/session",
    // Anyone may post here, with no token: a body the size of a token, not an API request's 1 MB.
    {
      schema: { ...hidden, body: SignInBody },
      config: { checksToken: true },
      bodyLimit: 16 * 1024,
    },
    async (request, reply) => {
      const key = await sessions.signInWithToken(request.body.token);
      if (!key) {
        throw new ServiceError(
          "unauthenticated",
          "That token is not a valid reseller token (rsk_…): it is unknown, revoked, expired or a workspace token.",
        );
      }
      return reply
        .code(204)
        .header("set-cookie", sessionCookie(key, isSecure(request, services.publicUrl)))
        .send();
    },
  );

  app.get<{ Querystring: { code?: string } }>(
    "/dashboard/sign-in",
    { schema: hidden },
    async (request, reply) => {
      // A HEAD (a link checker, a chat app's preview) must not use the one-time link up.
      if (request.method === "HEAD") return htmlPage(reply, 200, "");
      const code = typeof request.query.code === "string" ? request.query.code : "";
      const key = code ? await sessions.signInWithCode(code) : null;
      if (!key) {
        return htmlPage(
          reply,
          400,
          simplePage(
            "Sign-in link not valid",
            `<h1>This sign-in link is no longer valid</h1>
<p>A sign-in link works once, within ${signInLinkLifetimeText} of <code>reseller serve</code> printing it.</p>
<p><a href="${escapeHtml("/dashboard")}">Sign in with a reseller token</a>, or restart <code>reseller serve</code> for a new link.</p>`,
          ),
        );
      }
      return reply
        .header("set-cookie", sessionCookie(key, isSecure(request, services.publicUrl)))
        .header("referrer-policy", "no-referrer")
        .redirect("/dashboard", 303);
    },
  );

  app.post("/dashboard/sign-out", { schema: hidden, bodyLimit: 1024 }, async (request, reply) => {
    if (request.headers[dashboardRequestHeader] === undefined) {
      throw new ServiceError("unauthenticated", `Send the ${dashboardRequestHeader} header.`);
    }
    const session = await sessions.close(readCookie(request.headers.cookie, sessionCookieName));
    if (session?.mintedTokenId) {
      // The link's token has no other holder: revoke it through the API, like any client would.
      await callApi(app, session.token, {
        method: "DELETE",
        url: `/api/v1/tokens/${session.mintedTokenId}`,
      });
    }
    return reply
      .code(204)
      .header("set-cookie", sessionCookie(null, isSecure(request, services.publicUrl)))
      .send();
  });

  app.get<{ Params: { workspace_id: string; campaign_id: string } }>(
    "/dashboard/streams/workspaces/:workspace_id/campaigns/:campaign_id",
    { schema: hidden },
    async (request, reply) => {
      const key = readCookie(request.headers.cookie, sessionCookieName);
      await requireSession(request);
      reply.hijack();
      const end = streamCampaignStats(
        app,
        async () => (await sessions.find(key))?.token ?? null,
        reply.raw,
        {
          workspaceId: request.params.workspace_id,
          campaignId: request.params.campaign_id,
        },
      );
      streams.add(end);
      reply.raw.on("close", () => {
        end();
        streams.delete(end);
      });
    },
  );

  // The proxy passes bodies through untouched, so it reads them as bytes in its own context.
  app.register(async (proxy) => {
    proxy.removeAllContentTypeParsers();
    proxy.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => {
      done(null, body);
    });
    // The session is checked before the body is read: without one, not a byte of it is.
    const sessionsOfRequests = new WeakMap<FastifyRequest, DashboardSession>();
    proxy.all<{ Params: { "*": string } }>(
      "/dashboard/api/*",
      {
        schema: hidden,
        // The page sends small JSON bodies only (sandbox controls); a file goes to the API itself,
        // which streams it, where this proxy would hold it whole.
        bodyLimit: otherBodyLimitBytes,
        onRequest: async (request) => {
          sessionsOfRequests.set(request, await requireSession(request));
        },
      },
      async (request, reply) => {
        const session = sessionsOfRequests.get(request);
        // onRequest set it or refused the request; nothing else reaches this handler.
        if (!session) throw new Error("dashboard proxy: no session checked for this request");
        if (request.method !== "GET" && request.headers[dashboardRequestHeader] === undefined) {
          throw new ServiceError(
            "unauthenticated",
            `Dashboard calls that change data must send the ${dashboardRequestHeader} header.`,
          );
        }
        // fastify decodes the wildcard: %2F, %3F and .. must not lead the call out of /api/.
        if (/\.\.|[?#\\]/.test(request.params["*"])) {
          throw new ServiceError("not_found", "No such API path.");
        }
        // A proxied call is answered once the API's answer is whole: an event stream never is,
        // and would stay open in the service after the browser left.
        if (/(^|\/)stream$/.test(request.params["*"].replace(/\/+$/, ""))) {
          throw new ServiceError(
            "not_found",
            "Event streams are not passed through the dashboard; read /api/v1/events/stream with a token.",
          );
        }
        const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "";
        const answer = await callApi(app, session.token, {
          method: request.method,
          url: `/api/${request.params["*"]}${query}`,
          body:
            request.body === undefined || request.body === null
              ? undefined
              : (request.body as Buffer),
          headers: {
            "content-type": request.headers["content-type"],
            "idempotency-key": request.headers["idempotency-key"] as string | undefined,
          },
        });
        return reply
          .code(answer.status)
          .headers({ ...answer.headers, "cache-control": "no-store" })
          .send(answer.body);
      },
    );
  });
}
