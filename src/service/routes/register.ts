import { parse as parseQuery, unescape as unescapeQuery } from "node:querystring";
import type { FastifyReply } from "fastify";
import type { App } from "../app-types.js";
import {
  findPublicPlan,
  publicPlans,
  signUp,
  signUpLimit,
  signUpOwner,
  visitorLocale,
} from "../dashboard/sign-up.js";
import {
  invitationLandingPage,
  signedUpPage,
  signUpClosedPage,
  signUpCsp,
  signUpInProgressPage,
  signUpPage,
  tooManySignUpsPage,
  unknownPlanPage,
} from "../dashboard/sign-up-page.js";
import {
  oncePerSubmission,
  type SignUpAnswer,
  submissionField,
} from "../dashboard/sign-up-submissions.js";
import { clientAddressKey } from "../domain/client-address.js";
import { SharedRateCounter } from "../domain/rate-limit-buckets.js";
import type { Services } from "../services.js";

function page(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("content-security-policy", signUpCsp)
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "same-origin")
    .header("cache-control", "no-store")
    .send(html);
}

function text(value: unknown): string {
  if (Array.isArray(value)) return text(value[0]);
  return typeof value === "string" ? value : "";
}

const hidden = { hide: true } as const;

/** A posted form: its fields, and the names of those whose bytes are not UTF-8 (left empty). */
interface PostedForm {
  fields: Record<string, string | string[]>;
  unreadable: string[];
}

/** The text a percent-encoded value stands for, or null when its bytes are not UTF-8. */
function decodedText(encoded: string): string | null {
  try {
    // A % that starts no escape is itself, as the query-string parser reads it; then only
    // bytes that are not UTF-8 make decodeURIComponent throw.
    return decodeURIComponent(encoded.replace(/%(?![0-9a-f]{2})/gi, "%25"));
  } catch {
    return null;
  }
}

/**
 * Reads a urlencoded form as the JSON API reads a body: bytes that are not UTF-8 (%FF, an
 * encoded surrogate) are refused, where the query-string parser would store U+FFFD instead.
 */
function readForm(body: string): PostedForm {
  // Values as sent ('+' already read as a space), to decode each strictly.
  const raw = parseQuery(body, "&", "=", { decodeURIComponent: (text) => text });
  const fields: Record<string, string | string[]> = {};
  const unreadable: string[] = [];
  for (const [encodedName, value] of Object.entries(raw)) {
    const name = decodedText(encodedName) ?? unescapeQuery(encodedName);
    const values = ([] as string[]).concat(value ?? []).map((encoded) => {
      const text = decodedText(encoded);
      if (text === null && !unreadable.includes(name)) unreadable.push(name);
      return text ?? "";
    });
    fields[name] = values.length === 1 ? (values[0] ?? "") : values;
  }
  return { fields, unreadable };
}

/**
 * `/register`: where every public plan's registration_url points. GET shows the plan and the
 * form; POST (an HTML form, no script needed) creates the client's workspace with its
 * invitation. With `publicSignup` off, both explain that sign-up is by invitation.
 */
export function registerRoutes(
  app: App,
  services: Services,
  options: { publicSignup: boolean },
): void {
  const { db, publicUrl } = services;
  // Counted in the database, so the limit holds whichever instance a visitor reaches.
  const limiter = new SharedRateCounter(db, services.clock, signUpLimit);
  app.addHook("onClose", () => limiter.close());

  const closed = async (reply: FastifyReply) =>
    page(reply, 403, signUpClosedPage((await signUpOwner(db))?.name ?? null));

  app.get<{ Querystring: Record<string, string | string[] | undefined> }>(
    "/register",
    { schema: hidden },
    async (request, reply) => {
      const slug = text(request.query.plan);
      if (text(request.query.workspace)) {
        return page(
          reply,
          200,
          invitationLandingPage((await findPublicPlan(db, publicUrl, slug))?.plan ?? null),
        );
      }
      if (!options.publicSignup) return closed(reply);
      const found = await findPublicPlan(db, publicUrl, slug);
      if (!found)
        return page(reply, 404, unknownPlanPage(slug, (await publicPlans(db, publicUrl)).plans));
      const locale = visitorLocale(request.headers["accept-language"]);
      return page(reply, 200, signUpPage(found.plan, found.currency, locale));
    },
  );

  // HTML forms post urlencoded bodies, which only this context reads. The limit is the route's
  // too, so a 413 states the size this form takes.
  const formBodyLimit = 16 * 1024;
  app.register(async (form) => {
    form.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: formBodyLimit },
      (_request, body, done) => {
        done(null, readForm(String(body)));
      },
    );
    form.post<{ Body: PostedForm | undefined }>(
      "/register",
      { schema: hidden, bodyLimit: formBodyLimit },
      async (request, reply) => {
        if (!options.publicSignup) return closed(reply);
        const body = request.body?.fields ?? {};
        const slug = text(body.plan);
        const found = await findPublicPlan(db, publicUrl, slug);
        if (!found)
          return page(reply, 404, unknownPlanPage(slug, (await publicPlans(db, publicUrl)).plans));
        const input = {
          business_name: text(body.business_name),
          contact_email: text(body.contact_email),
        };
        // A bot fills every field it sees; people never see this one. It is told what a person is.
        if (text(body.website) !== "") {
          request.log.info({ plan: slug }, "sign-up honeypot filled: nothing created");
          return page(
            reply,
            201,
            signedUpPage(input.business_name.trim(), input.contact_email.trim(), found.plan),
          );
        }
        const owner = await signUpOwner(db);
        if (!owner) return closed(reply);
        const unreadable = request.body?.unreadable ?? [];
        const locale = visitorLocale(request.headers["accept-language"]);
        const submission = text(body[submissionField]);
        const create = async (): Promise<SignUpAnswer> => {
          const outcome = await signUp(
            services,
            owner.id,
            found.plan,
            { ...input, unreadable },
            async () => {
              const decision = await limiter.hit(`signup:${clientAddressKey(request.ip)}`);
              if (decision.allowed) return null;
              return {
                ok: false,
                retryAfterSeconds: Math.max(1, Math.ceil(decision.resetMs / 1000)),
              };
            },
          );
          if ("retryAfterSeconds" in outcome) {
            const wait = outcome.retryAfterSeconds;
            return { status: 429, html: tooManySignUpsPage(wait), retryAfter: wait };
          }
          if (!outcome.ok) {
            const form = { ...input, errors: outcome.errors, submission };
            return { status: 422, html: signUpPage(found.plan, found.currency, locale, form) };
          }
          const { name, contact_email } = outcome.workspace;
          return { status: 201, html: signedUpPage(name, contact_email, found.plan) };
        };
        const answer = await oncePerSubmission(
          db,
          services.clock,
          submission,
          { plan: slug, ...input },
          create,
          () => ({ status: 409, html: signUpInProgressPage() }),
        );
        if (answer.retryAfter !== undefined) reply.header("retry-after", String(answer.retryAfter));
        return page(reply, answer.status, answer.html);
      },
    );
  });
}
