import { WebhookUrl } from "../../../contract/webhooks.js";

/**
 * Why the service would refuse this endpoint URL (its own rule, contract/webhooks.ts), said of
 * `subject` (a flag, a prompt's answer), or undefined.
 */
export function webhookUrlProblem(text: string, subject: string): string | undefined {
  const checked = WebhookUrl.safeParse(text);
  return checked.success ? undefined : checked.error.issues[0]?.message.replace(/^url\b/, subject);
}
