import { CreateWorkspaceBody } from "../../../contract/workspaces.js";

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
