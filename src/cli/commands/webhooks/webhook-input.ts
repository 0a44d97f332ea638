import { WebhookUrl } from "../../../contract/webhooks.js";
import { usageError } from "../../cli-error.js";

/**
 * Why the service would refuse this endpoint URL (its own rule, contract/webhooks.ts), said of
 * `subject` (a flag, a prompt's answer), or undefined.
 */
export function webhookUrlProblem(text: string, subject: string): string | undefined {
  const checked = WebhookUrl.safeParse(text);
  return checked.success ? undefined : checked.error.issues[0]?.message.replace(/^url\b/, subject);
}

/** The endpoint URL given by `flag`, refused (exit 2, before any request) where the service would refuse it. */
export function checkedWebhookUrl(text: string, flag: string): string {
  const problem = webhookUrlProblem(text, flag);
  if (problem !== undefined) throw usageError(`${problem}.`);
  return text;
}
