import { CreateWorkspaceBody } from "../../../contract/workspaces.js";
import { usageError } from "../../cli-error.js";

/** Why the service would refuse this business name (its own rule, contract/workspaces.ts), or undefined. */
export function nameProblem(value: string): string | undefined {
  const checked = CreateWorkspaceBody.shape.name.safeParse(value);
  return checked.success ? undefined : checked.error.issues[0]?.message;
}

/**
 * Why the service would refuse this contact email, or undefined: its own rule, so an
 * internationalised address the service takes is never refused here first.
 */
export function emailProblem(value: string): string | undefined {
  return CreateWorkspaceBody.shape.contact_email.safeParse(value).success
    ? undefined
    : "Enter an email address such as owner@example.com.";
}

/** Refuses (exit 2, before any request) a --name the service would refuse. */
export function checkNameFlag(name: string): void {
  const problem = nameProblem(name);
  if (problem) throw usageError(`Invalid --name: ${problem}`);
}

/** Refuses (exit 2, before any request) an --email the service would refuse. */
export function checkEmailFlag(email: string): void {
  if (emailProblem(email)) {
    throw usageError(
      `--email is not an email address: '${email}'.`,
      "Give one such as owner@example.com (internationalised addresses are fine).",
    );
  }
}
