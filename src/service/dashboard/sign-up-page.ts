import type { Currency, Plan } from "../../contract/plans.js";
import { escapeHtml as e, simplePage } from "./page.js";
import { describeFeature, formatPrice } from "./sign-up.js";
import { newSubmissionId, submissionField } from "./sign-up-submissions.js";

/**
 * The sign-up pages allow no script at all: only the service's stylesheet and its own form, and
 * a data: image for the empty icon (page.ts), so the browser does not ask for /favicon.ico.
 */
export const signUpCsp =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** What the form held and what was wrong with it, to show it again. */
export interface SignUpForm {
  business_name: string;
  contact_email: string;
  errors: Record<string, string>;
  /** The form's submission id (sign-up-submissions.ts); a new one when the form is new. */
  submission?: string;
}

function planSummary(plan: Plan, currency: Currency | null, locale: string): string {
  const trial =
    plan.is_free && plan.trial_days !== null
      ? `<p class="trial">${plan.trial_days}-day free trial.</p>`
      : "";
  return `<section class="plan" aria-labelledby="plan-name">
<h2 id="plan-name">${e(plan.name)}</h2>
<p class="price">${e(formatPrice(plan, currency, locale))}</p>
${plan.description ? `<p>${e(plan.description)}</p>` : ""}
${trial}
<ul class="features">
${plan.features.map((f) => `<li>${e(describeFeature(f, locale))}</li>`).join("\n")}
</ul>
</section>`;
}

function field(
  name: "business_name" | "contact_email",
  label: string,
  form: SignUpForm,
  attributes: string,
): string {
  const error = form.errors[name];
  const described = error ? ` aria-invalid="true" aria-describedby="${name}-error"` : "";
  return `<div class="field">
<label for="${name}">${e(label)}</label>
<input id="${name}" name="${name}" value="${e(form[name])}" required ${attributes}${described}>
${error ? `<p class="error" id="${name}-error">${e(error)}</p>` : ""}
</div>`;
}

/** The sign-up form for one plan (again with the problems when a submission had any). */
export function signUpPage(
  plan: Plan,
  currency: Currency | null,
  locale: string,
  form: SignUpForm = { business_name: "", contact_email: "", errors: {} },
): string {
  const problems = Object.keys(form.errors).length;
  const summary = problems
    ? `<div class="alert" role="alert"><p>Please correct ${problems === 1 ? "the field" : "the fields"} marked below.</p></div>`
    : "";
  return simplePage(
    `Sign up: ${plan.name}`,
    `<h1>Sign up for ${e(plan.name)}</h1>
${planSummary(plan, currency, locale)}
${summary}
<form method="post" action="/register" class="card" novalidate>
<input type="hidden" name="plan" value="${e(plan.slug)}">
<input type="hidden" name="${submissionField}" value="${e(form.submission || newSubmissionId())}">
${field("business_name", "Business name", form, 'autocomplete="organization" maxlength="200"')}
${field("contact_email", "Contact email", form, 'type="email" autocomplete="email" maxlength="320"')}
<div class="hp" aria-hidden="true">
<label for="website">Leave this field empty</label>
<input id="website" name="website" tabindex="-1" autocomplete="off">
</div>
<button type="submit">Create my workspace</button>
<p class="hint">We email your invitation to the contact address.</p>
</form>`,
  );
}

/** After a sign-up (also what a bot that filled the honeypot sees, so it learns nothing). */
export function signedUpPage(businessName: string, email: string, plan: Plan): string {
  const trial =
    plan.is_free && plan.trial_days !== null
      ? ` Your ${plan.trial_days}-day trial starts now.`
      : "";
  return simplePage(
    "Workspace created",
    `<h1>Welcome, ${e(businessName)}</h1>
<p role="status">Your workspace on the ${e(plan.name)} plan is ready.${trial} We have sent an invitation to <strong>${e(email)}</strong>.</p>`,
  );
}

/** The same form was sent again while its first sending still runs. */
export function signUpInProgressPage(): string {
  return simplePage(
    "Sign-up in progress",
    `<h1>Your sign-up is on its way</h1>
<p role="status">This form was sent twice; the first sending is still being handled. Reload this page in a moment to see your workspace.</p>`,
  );
}

/** The plan named in the link is not offered (unknown, private or missing). */
export function unknownPlanPage(slug: string, plans: Plan[]): string {
  const list = plans.length
    ? `<p>These plans are open for sign-up:</p><ul>${plans
        .map(
          (p) => `<li><a href="/register?plan=${encodeURIComponent(p.slug)}">${e(p.name)}</a></li>`,
        )
        .join("")}</ul>`
    : "<p>No plan is open for sign-up at the moment.</p>";
  return simplePage(
    "Plan not found",
    `<h1>This plan is not available</h1>
<p>${slug ? `No plan called <code>${e(slug)}</code> is open for sign-up.` : "The link names no plan."}</p>
${list}`,
  );
}

/** Sign-up is turned off (`serve --no-public-signup`): where to go instead. */
export function signUpClosedPage(resellerName: string | null): string {
  const who = resellerName ? e(resellerName) : "the company that sent you this link";
  return simplePage(
    "Sign-up by invitation",
    `<h1>Sign-up is by invitation</h1>
<p>Workspaces on this service are not created online. Please contact ${who} (the provider whose pricing page you came from): they create your workspace and send you an invitation by email.</p>
<p>Already invited? Follow the link in your invitation email.</p>`,
  );
}

/** The invitation email's link (`?workspace=…`): the workspace exists already. */
export function invitationLandingPage(plan: Plan | null): string {
  return simplePage(
    "Your workspace",
    `<h1>Your workspace is ready</h1>
<p>Your provider has set up your workspace${plan ? ` on the ${e(plan.name)} plan` : ""}. They will give you access to it; there is nothing more to fill in here.</p>`,
  );
}

/** Too many sign-ups from one address. */
export function tooManySignUpsPage(retryAfterSeconds: number): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return simplePage(
    "Too many sign-ups",
    `<h1>Too many sign-ups from your network</h1>
<p role="alert">Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.</p>`,
  );
}
