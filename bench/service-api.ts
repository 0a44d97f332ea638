// What the service benchmarks do through the public API before they measure: a workspace, and
// contacts imported as a user imports them (a streamed text/csv upload, then the import job).

/** Calls the service's API with the token; throws on an error answer. */
export function apiCaller(url: string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await response.json()) as { data: Record<string, unknown> };
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  };
}

/** A workspace without a plan (no contact limit) for the benchmark's contacts. */
export async function benchWorkspace(url: string, token: string, name = "Bench"): Promise<string> {
  const workspace = await apiCaller(url, token)("POST", "/api/v1/workspaces", {
    name,
    contact_email: "bench@example.test",
    send_invitation: false,
  });
  return String(workspace.id);
}

/** The import's record once it has ended (completed or failed), polled every `pollMs`. */
export async function importAndWait(
  url: string,
  token: string,
  workspaceId: string,
  csv: Buffer,
  pollMs = 200,
): Promise<Record<string, unknown>> {
  const base = `/api/v1/workspaces/${workspaceId}/contacts`;
  const response = await fetch(`${url}${base}/import?duplicate_handling=update`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "text/csv" },
    body: csv,
  });
  const json = (await response.json()) as { data: Record<string, unknown> };
  if (response.status !== 202)
    throw new Error(`import upload: ${response.status} ${JSON.stringify(json)}`);
  const call = apiCaller(url, token);
  for (;;) {
    const record = await call("GET", `${base}/imports/${json.data.id}`);
    if (record.status === "completed" || record.status === "failed") return record;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
