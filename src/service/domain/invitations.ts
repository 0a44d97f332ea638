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

/** The invitation email to a new workspace's contact. */
export function invitationMail(
  workspace: { id: string; name: string; contact_email: string },
  plan: { name: string; slug: string } | null,
  publicUrl: string,
): OutgoingMail {
  const link = signUpLink(publicUrl, workspace.id, plan?.slug ?? null);
  const planLine = plan ? `Your workspace is on the ${plan.name} plan.\n\n` : "";
  return {
    to: workspace.contact_email,
    subject: `You're invited to your workspace ${workspace.name}`,
    text:
      `Hello,\n\nA workspace called "${workspace.name}" has been created for you.\n\n` +
      planLine +
      // The link's page confirms the workspace and asks for nothing (no account is made there):
      // the provider gives access, so the email says that rather than "sign up".
      `It is ready; your provider will give you access to it. Details:\n${link}\n\n` +
      "If you did not expect this email, you can ignore it.\n",
  };
}
