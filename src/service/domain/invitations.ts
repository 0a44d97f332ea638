import type { OutgoingMail } from "./outbox.js";

/**
 * The sign-up link of an invitation: `<publicUrl>/register?workspace=<id>` plus the plan's slug,
 * the same page the catalogue's registration_url points at, so the client lands in its workspace.
 */
export function signUpLink(
  publicUrl: string,
  workspaceId: string,
  planSlug: string | null,
): string {
  const query = new URLSearchParams({ workspace: workspaceId });
  if (planSlug !== null) query.set("plan", planSlug);
  return `${publicUrl.replace(/\/+$/, "")}/register?${query.toString()}`;
}

/**
 * The invitation email to a new workspace's contact. One made on the public sign-up page says
 * nothing the visitor typed (not the business name): anyone may type any address there, and the
 * email must not carry their words to it.
 */
export function invitationMail(
  workspace: { id: string; name: string; contact_email: string },
  plan: { name: string; slug: string } | null,
  publicUrl: string,
  origin: WorkspaceOrigin = "api",
): OutgoingMail {
  const link = signUpLink(publicUrl, workspace.id, plan?.slug ?? null);
  const planLine = plan ? `Your workspace is on the ${plan.name} plan.\n\n` : "";
  // The link's page confirms the workspace and asks for nothing (no account is made there):
  // the provider gives access, so the email says that rather than "sign up".
  const ready = `It is ready; your provider will give you access to it. Details:\n${link}\n\n`;
  if (origin === "sign-up page") {
    return {
      to: workspace.contact_email,
      subject: "Your new workspace is ready",
      text:
        "Hello,\n\nA workspace has been created for this email address through the sign-up page.\n\n" +
        planLine +
        ready +
        "If you did not sign up, you can ignore this email: nothing will be sent on your behalf.\n",
    };
  }
  return {
    to: workspace.contact_email,
    subject: `You're invited to your workspace ${workspace.name}`,
    text:
      `Hello,\n\nA workspace called "${workspace.name}" has been created for you.\n\n` +
      planLine +
      ready +
      "If you did not expect this email, you can ignore it.\n",
  };
}

/** Who asked for a workspace: a reseller through the API (or CLI), or a visitor of /register. */
export type WorkspaceOrigin = "api" | "sign-up page";
