// The dashboard's one way to reach the service: the public API through /dashboard/api, which
// adds the session's token. Plain ES module, no build step.

/** An API answer that was not a success: the error envelope's code and message. */
export class ApiProblem extends Error {
  constructor(status, body) {
    super(body?.message ?? `The service answered ${status}.`);
    this.status = status;
    this.code = body?.error_code ?? "unknown";
  }
}

let onSignedOut = () => {};

/** Called when the session is gone (401), so the app shows the sign-in form. */
export function whenSignedOut(callback) {
  onSignedOut = callback;
}

/** GET or POST the public API (path after /api/v1); answers the success envelope. */
export async function api(path, { method = "GET", body } = {}) {
  const headers = { accept: "application/json" };
  if (method !== "GET") headers["x-reseller-dashboard"] = "1";
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`/dashboard/api/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!response.ok) {
    if (response.status === 401) onSignedOut();
    throw new ApiProblem(response.status, parsed);
  }
  return parsed;
}

/**
 * Every page of a list (path after /api/v1, with its per_page), followed by cursor up to
 * `maxPages` pages: the envelope of the last page with the data of all of them.
 */
export async function apiAll(path, maxPages = 20) {
  const data = [];
  let body = await api(path);
  data.push(...body.data);
  for (let page = 1; page < maxPages && body.meta?.pagination?.next_cursor; page++) {
    // Set, not appended: a path that carries a cursor already asks for the next one.
    const next = new URL(path, location.origin);
    next.searchParams.set("cursor", body.meta.pagination.next_cursor);
    body = await api(`${next.pathname}${next.search}`);
    data.push(...body.data);
  }
  return { ...body, data };
}

/** Signs in with a reseller token; the session cookie is HttpOnly, so the token stays here. */
export async function signIn(token) {
  const response = await fetch("/dashboard/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
    credentials: "same-origin",
  });
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    throw new ApiProblem(response.status, body);
  }
}

/** Ends the session (a sign-in link's token is revoked too). */
export async function signOut() {
  await fetch("/dashboard/sign-out", {
    method: "POST",
    headers: { "x-reseller-dashboard": "1" },
    credentials: "same-origin",
  });
}
