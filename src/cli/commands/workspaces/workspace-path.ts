/** `/api/v1/workspaces/<id>` and what lies below it (`/contacts`, `/archive`), the id encoded. */
export function workspacePath(id: string | undefined, rest = ""): string {
  return `/api/v1/workspaces/${encodeURIComponent(id ?? "")}${rest}`;
}
