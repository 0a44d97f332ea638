// The dashboard: Preact + htm, plain ES modules served by `reseller serve`, no build step. It
// reads and writes only through the public API (see api.js).
import htm from "htm";
import { h, render } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiProblem, api, apiAll, signIn, signOut, whenSignedOut } from "./api.js";
import { CampaignLive } from "./funnel-chart.js";

const html = htm.bind(h);

const views = [
  ["workspaces", "Workspaces"],
  ["campaigns", "Campaigns"],
  ["imports", "Imports"],
  ["jobs", "Jobs"],
  ["webhooks", "Webhooks"],
  ["outbox", "Outbox"],
  ["sandbox", "Sandbox"],
];

function when(value) {
  return value ? new Date(value).toLocaleString() : "—";
}

/** What useApi answers for a path before its first answer arrives. */
const notLoaded = { data: null, meta: null, error: null, loading: true };

/**
 * Loads an API path, every `every` ms if given, and with `all` every page of a list (a reseller
 * with more than 100 clients sees them all); answers { data, error, loading, reload }. The state
 * belongs to the path it was loaded for: when the path changes (another workspace) nothing of
 * the old path is shown, even for one render, until the new path's own answer arrives.
 */
function useApi(path, { every, all } = {}) {
  const [state, setState] = useState({ ...notLoaded, path });
  // One load of a path at a time (a tick while its pages are still coming is skipped), and only
  // the path asked for last may set the state (another workspace's late answer is dropped).
  const inFlight = useRef(null);
  const latest = useRef(path);
  latest.current = path;
  const load = useCallback(() => {
    if (!path || inFlight.current === path) return;
    inFlight.current = path;
    const settle = (next) => {
      if (inFlight.current === path) inFlight.current = null;
      if (latest.current === path) setState({ ...next, path });
    };
    (all ? apiAll(path) : api(path))
      .then((body) => settle({ data: body.data, meta: body.meta, error: null, loading: false }))
      .catch((error) => settle({ data: null, meta: null, error, loading: false }));
  }, [path, all]);
  useEffect(() => {
    let current = true;
    setState((s) => (s.path === path ? { ...s, loading: true } : { ...notLoaded, path }));
    load();
    const timer = every ? setInterval(() => current && load(), every) : undefined;
    return () => {
      current = false;
      if (timer) clearInterval(timer);
    };
  }, [load, every]);
  const { data, meta, error, loading } = state.path === path ? state : notLoaded;
  return { data, meta, error, loading, reload: load };
}

function Problem({ error, id }) {
  return error ? html`<p class="error" role="alert" id=${id}>${error.message}</p>` : null;
}

function Empty({ children }) {
  return html`<p class="empty">${children}</p>`;
}

function SignIn({ onSignedIn }) {
  const [error, setError] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    const token = new FormData(event.currentTarget).get("token");
    try {
      await signIn(String(token));
      onSignedIn();
    } catch (problem) {
      setError(problem);
    }
  };
  return html`<main class="narrow">
    <h1>Reseller dashboard</h1>
    <form class="card" onSubmit=${submit}>
      <div class="field">
        <label for="token">Reseller token</label>
        <input id="token" name="token" type="password" autocomplete="off" required placeholder="rsk_…"
          aria-describedby=${error ? "token-hint token-error" : "token-hint"} aria-invalid=${error ? "true" : undefined} />
        <p class="hint" id="token-hint">Or open the one-time sign-in link that <code>reseller serve</code> printed.</p>
      </div>
      <${Problem} error=${error} id="token-error" />
      <button type="submit">Sign in</button>
    </form>
  </main>`;
}

function WorkspacePicker({ workspaces, value, onChange }) {
  if (!workspaces?.length) return html`<${Empty}>No workspaces yet.<//>`;
  return html`<div class="field inline">
    <label for="workspace">Workspace</label>
    <select id="workspace" value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
      ${workspaces.map((w) => html`<option value=${w.id}>${w.name}</option>`)}
    </select>
  </div>`;
}

/** Usage answers of the last 10 s by workspace: a row the filter shows again asks nothing. */
const recentUsage = new Map();

function UsageBars({ id }) {
  const cached = recentUsage.get(id);
  const fresh = cached !== undefined && Date.now() - cached.at < 10_000;
  const { data: loaded } = useApi(fresh ? null : `/workspaces/${id}`);
  useEffect(() => {
    if (loaded) recentUsage.set(id, { at: Date.now(), data: loaded });
  }, [loaded, id]);
  const data = fresh ? cached.data : loaded;
  if (!data) return html`<span class="muted">…</span>`;
  const limits = data.usage.limits;
  if (!limits.length) return html`<span class="muted">No limits</span>`;
  return html`<ul class="usage">
    ${limits.map((l) => {
      const unlimited = l.limit === -1 || l.limit === null;
      return html`<li>
        <span id=${`u-${id}-${l.key}`}><bdi>${l.name}</bdi>: ${l.used} / ${unlimited ? "∞" : l.limit}</span>
        ${!unlimited && html`<progress aria-labelledby=${`u-${id}-${l.key}`} max=${l.limit} value=${Math.min(l.used, l.limit)}></progress>`}
      </li>`;
    })}
  </ul>`;
}

/** Rows of the workspaces table shown at once: each asks the service for its usage. */
const workspaceRowsShown = 50;

function Workspaces({ workspaces }) {
  const [filter, setFilter] = useState("");
  const [shown, setShown] = useState(workspaceRowsShown);
  if (!workspaces.length)
    return html`<${Empty}>No workspaces yet: create one with <code>reseller workspaces create</code> or the sign-up page.<//>`;
  const wanted = filter.trim().toLocaleLowerCase();
  const matching = wanted
    ? workspaces.filter((w) => `${w.name} ${w.contact_email}`.toLocaleLowerCase().includes(wanted))
    : workspaces;
  const rows = matching.slice(0, shown);
  return html`${
    (workspaces.length > workspaceRowsShown || filter !== "") &&
    html`<div class="field inline">
      <label for="workspace-filter">Find a workspace</label>
      <input id="workspace-filter" type="search" value=${filter} placeholder="Name or email"
        onInput=${(e) => {
          setFilter(e.currentTarget.value);
          setShown(workspaceRowsShown);
        }} />
    </div>`
  }
    <div class="table-wrap"><table class="stack">
    <caption>Workspaces and their usage against plan limits</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Plan</th><th scope="col">Status</th><th scope="col">Usage</th></tr></thead>
    <tbody>
      ${rows.map(
        (w) => html`<tr key=${w.id}>
          <td data-label="Name"><strong><bdi>${w.name}</bdi></strong><br /><span class="muted"><bdi>${w.contact_email}</bdi></span></td>
          <td data-label="Plan"><bdi>${w.plan?.name ?? "—"}</bdi></td>
          <td data-label="Status"><span class=${`badge badge-${w.status}`}>${w.status}</span>${w.trial_ends_at ? html`<br /><span class="muted">until ${when(w.trial_ends_at)}</span>` : ""}</td>
          <td data-label="Usage"><${UsageBars} id=${w.id} /></td>
        </tr>`,
      )}
    </tbody></table></div>
    ${matching.length === 0 && html`<${Empty}>No workspace matches “${filter.trim()}”.<//>`}
    ${
      matching.length > rows.length &&
      html`<p><button class="secondary" onClick=${() => setShown(shown + workspaceRowsShown)}>
        Show more (${rows.length} of ${matching.length} shown)</button></p>`
    }`;
}

function Campaigns({ workspaceId }) {
  const { data, error } = useApi(`/workspaces/${workspaceId}/campaigns?per_page=100`, {
    all: true,
    every: 2000,
  });
  const [open, setOpen] = useState(null);
  useEffect(() => setOpen(null), [workspaceId]);
  return html`<${Problem} error=${error} />
    ${data && !data.length && html`<${Empty}>No campaigns in this workspace.<//>`}
    ${
      data?.length > 0 &&
      html`<ul class="list">
        ${data.map(
          (c) => html`<li>
            <button class="link" aria-expanded=${open === c.id} onClick=${() => setOpen(open === c.id ? null : c.id)}>
              <bdi>${c.name}</bdi></button>
            <span class=${`badge badge-${c.status}`}>${c.status}</span>
            <span class="muted"><bdi>${c.template_name}</bdi> · ${when(c.started_at ?? c.created_at)}</span>
          </li>`,
        )}
      </ul>`
    }
    ${open && html`<${CampaignLive} key=${open} workspaceId=${workspaceId} campaignId=${open} />`}`;
}

function ImportErrors({ workspaceId, importId }) {
  const { data, error } = useApi(
    `/workspaces/${workspaceId}/contacts/imports/${importId}/errors?per_page=100`,
    { all: true },
  );
  if (error) return html`<${Problem} error=${error} />`;
  if (!data) return html`<p class="muted">Loading errors…</p>`;
  return html`<div class="table-wrap"><table class="stack" data-testid="import-errors">
    <caption>Row errors (rows refused and not imported)</caption>
    <thead><tr><th scope="col">Row</th><th scope="col">Phone</th><th scope="col">Field</th><th scope="col">Problem</th></tr></thead>
    <tbody>${data.map((r) => html`<tr><td data-label="Row">${r.row}</td><td data-label="Phone"><bdi>${r.phone ?? ""}</bdi></td><td data-label="Field">${r.field}</td><td data-label="Problem"><bdi>${r.message}</bdi></td></tr>`)}</tbody>
  </table></div>`;
}

function Imports({ workspaceId }) {
  const { data, error } = useApi(`/workspaces/${workspaceId}/contacts/imports?per_page=100`, {
    all: true,
    every: 2000,
  });
  const [open, setOpen] = useState(null);
  return html`<${Problem} error=${error} />
    ${data && !data.length && html`<${Empty}>No imports in this workspace.<//>`}
    <ul class="list">
      ${(data ?? []).map((i) => {
        const total = Math.max(i.total_rows, i.processed_rows, 1);
        return html`<li class="import">
          <div><strong>${i.id}</strong> <span class=${`badge badge-${i.status}`}>${i.status}</span>
            <span class="muted">${when(i.created_at)}</span></div>
          <label class="progress"><span>${i.processed_rows} of ${i.total_rows} rows</span>
            <progress max=${total} value=${i.processed_rows}></progress></label>
          <p class="muted">${i.created} created · ${i.updated} updated · ${i.skipped} skipped · ${i.error_count} errors</p>
          ${
            i.error_count > 0 &&
            html`<button class="secondary" aria-expanded=${open === i.id} onClick=${() => setOpen(open === i.id ? null : i.id)}
              aria-label=${`${open === i.id ? "Hide" : "Show"} ${i.error_count} row errors of import ${i.id}`}>
              ${open === i.id ? "Hide" : "Show"} ${i.error_count} row errors</button>`
          }
          ${open === i.id && html`<${ImportErrors} workspaceId=${workspaceId} importId=${i.id} />`}
        </li>`;
      })}
    </ul>`;
}

function Jobs() {
  const { data, error } = useApi("/jobs?per_page=50", { every: 3000 });
  return html`<${Problem} error=${error} />
    ${data && !data.length && html`<${Empty}>No background jobs yet.<//>`}
    ${
      data?.length > 0 &&
      html`<div class="table-wrap"><table class="stack"><caption>Background jobs, newest first</caption>
        <thead><tr><th scope="col">Kind</th><th scope="col">State</th><th scope="col">Subject</th><th scope="col">Attempts</th><th scope="col">Updated</th></tr></thead>
        <tbody>${data.map(
          (
            j,
          ) => html`<tr><td data-label="Kind">${j.kind}</td><td data-label="State"><span class=${`badge badge-${j.state}`}>${j.state}</span>${j.last_error ? html`<br /><span class="error"><bdi>${j.last_error}</bdi></span>` : ""}</td>
            <td data-label="Subject">${j.subject.type} ${j.subject.id}</td><td data-label="Attempts">${j.attempts}</td><td data-label="Updated">${when(j.updated_at)}</td></tr>`,
        )}</tbody></table></div>`
    }`;
}

function Deliveries({ endpointId }) {
  const { data, error } = useApi(`/webhook-endpoints/${endpointId}/deliveries?per_page=20`, {
    every: 5000,
  });
  if (error) return html`<${Problem} error=${error} />`;
  if (!data) return null;
  if (!data.length) return html`<${Empty}>No deliveries yet.<//>`;
  return html`<div class="table-wrap"><table class="stack"><caption>Recent delivery attempts</caption>
    <thead><tr><th scope="col">Event</th><th scope="col">Outcome</th><th scope="col">Attempt</th><th scope="col">When</th></tr></thead>
    <tbody>${data.map(
      (d) => html`<tr>
        <td data-label="Event">${d.event_type}<br /><span class="muted">${d.event_id}</span></td>
        <td data-label="Outcome"><span class=${`badge badge-${d.delivered ? "done" : "failed"}`}>${d.delivered ? "delivered" : "failed"}</span>
          ${d.status_code ?? ""} ${d.error ? html`<span class="error">${d.error}</span>` : ""} <span class="muted">${d.duration_ms} ms</span></td>
        <td data-label="Attempt">${d.attempt}</td>
        <td data-label="When">${when(d.created_at)}</td>
      </tr>`,
    )}</tbody></table></div>`;
}

function Webhooks() {
  const { data, error, loading } = useApi("/webhook-endpoints?per_page=100", {
    all: true,
    every: 5000,
  });
  if (loading) return html`<p class="muted">Loading…</p>`;
  // A service without the webhooks API answers 404: an empty state, not an error.
  if (error instanceof ApiProblem && error.status === 404) {
    return html`<${Empty}>This service has no webhook endpoints API, so there are no deliveries to show.<//>`;
  }
  if (error) return html`<${Problem} error=${error} />`;
  if (!data?.length) {
    return html`<${Empty}>No webhook endpoints yet: add one with <code>reseller webhooks create</code>.<//>`;
  }
  return html`${data.map(
    (endpoint) => html`<section class="card" aria-label=${`Endpoint ${endpoint.url}`}>
      <h3><bdi>${endpoint.url}</bdi></h3>
      <p class="muted">${endpoint.enabled ? "enabled" : "disabled"} · ${endpoint.events.join(", ")}</p>
      <${Deliveries} endpointId=${endpoint.id} />
    </section>`,
  )}`;
}

function Outbox() {
  const { data, error } = useApi("/outbox?per_page=50", { every: 5000 });
  return html`<${Problem} error=${error} />
    ${data && !data.length && html`<${Empty}>The outbox is empty: invitations appear here.<//>`}
    <ul class="list">${(data ?? []).map(
      (m) => html`<li><details>
        <summary><strong><bdi>${m.subject}</bdi></strong> → <bdi>${m.to}</bdi> <span class=${`badge badge-${m.delivery}`}>${m.delivery}</span>
          <span class="muted">${when(m.created_at)}</span></summary>
        ${m.error && html`<p class="error">${m.error}</p>`}
        <pre>${m.text}</pre>
      </details></li>`,
    )}</ul>`;
}

function Sandbox({ workspaceId }) {
  const templates = useApi(`/workspaces/${workspaceId}/templates?per_page=100`, {
    all: true,
    every: 3000,
  });
  const [message, setMessage] = useState(null);
  const [error, setError] = useState(null);
  const run = async (what, call) => {
    setMessage(null);
    setError(null);
    try {
      await call();
      setMessage(what);
      templates.reload();
    } catch (problem) {
      setError(problem);
    }
  };
  const review = (id, decision, reason) =>
    run(
      `Template ${decision === "approve" ? "approved" : decision === "pause" ? "paused" : "rejected"}.`,
      () =>
        api(`/sandbox/templates/${id}/review`, {
          method: "POST",
          body: reason ? { decision, reason } : { decision },
        }),
    );
  const inbound = (event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const from = String(form.get("from"));
    const text = String(form.get("text"));
    run(`Sent “${text}” from ${from}.`, () =>
      api("/sandbox/inbound", { method: "POST", body: { workspace_id: workspaceId, from, text } }),
    );
  };
  return html`<div role="status" aria-live="polite">${message && html`<p class="ok">${message}</p>`}</div>
    <${Problem} error=${error} />
    <section class="card" aria-labelledby="review-title">
      <h3 id="review-title">Review templates</h3>
      ${templates.data && !templates.data.length && html`<${Empty}>No templates in this workspace.<//>`}
      <ul class="list">${(templates.data ?? []).map(
        (t) => html`<li>
          <strong><bdi>${t.name}</bdi></strong> <span class="muted">${t.language} · ${t.category}</span>
          <span class=${`badge badge-${t.status}`}>${t.status}</span>
          <span class="actions">
            ${(t.status === "pending" || t.status === "paused") && html`<button aria-label=${`Approve ${t.name}`} onClick=${() => review(t.id, "approve")}>Approve</button>`}
            ${t.status === "pending" && html`<button class="secondary" aria-label=${`Reject ${t.name} (invalid format)`} onClick=${() => review(t.id, "reject", "INVALID_FORMAT")}>Reject (invalid format)</button>`}
            ${t.status === "approved" && html`<button class="secondary" aria-label=${`Pause ${t.name}`} onClick=${() => review(t.id, "pause")}>Pause</button>`}
          </span>
        </li>`,
      )}</ul>
    </section>
    <section class="card" aria-labelledby="inbound-title">
      <h3 id="inbound-title">Inbound reply</h3>
      <form onSubmit=${inbound} class="row">
        <div class="field"><label for="from">From (E.164)</label>
          <input id="from" name="from" required placeholder="+4915112345678" inputmode="tel" autocomplete="off" /></div>
        <div class="field"><label for="text">Text</label>
          <select id="text" name="text"><option>STOP</option><option>START</option></select></div>
        <button type="submit">Send reply</button>
      </form>
    </section>`;
}

function currentView() {
  const name = location.hash.replace(/^#\/?/, "");
  return views.some(([key]) => key === name) ? name : "workspaces";
}

/** Which token (so which account) this browser is signed in with: two tabs may differ. */
function SignedInAs({ token }) {
  if (!token) return null;
  return html`<span class="signed-in" data-testid="signed-in-as">Signed in with token
    <strong><bdi>${token.name}</bdi></strong> (<bdi>${token.token_hint}</bdi>)</span>`;
}

function Dashboard({ token, onSignOut }) {
  const [view, setView] = useState(currentView());
  const workspaces = useApi("/workspaces?per_page=100", { every: 10000, all: true });
  const [workspaceId, setWorkspaceId] = useState(null);
  useEffect(() => {
    const update = () => setView(currentView());
    window.addEventListener("hashchange", update);
    return () => window.removeEventListener("hashchange", update);
  }, []);
  useEffect(() => {
    const list = workspaces.data ?? [];
    if (list.length && !list.some((w) => w.id === workspaceId)) setWorkspaceId(list[0].id);
  }, [workspaces.data]);
  const perWorkspace = ["campaigns", "imports", "sandbox"].includes(view);
  const title = views.find(([key]) => key === view)[1];
  return html`<header class="top">
      <span class="brand">Reseller dashboard</span>
      <nav aria-label="Sections"><ul>
        ${views.map(
          ([key, label]) =>
            html`<li><a href=${`#/${key}`} aria-current=${view === key ? "page" : undefined}>${label}</a></li>`,
        )}
      </ul></nav>
      <${SignedInAs} token=${token} />
      <button class="secondary" onClick=${onSignOut}>Sign out</button>
    </header>
    <main>
      <h1>${title}</h1>
      <${Problem} error=${workspaces.error} />
      ${perWorkspace && workspaces.data && html`<${WorkspacePicker} workspaces=${workspaces.data} value=${workspaceId} onChange=${setWorkspaceId} />`}
      ${view === "workspaces" && workspaces.data && html`<${Workspaces} workspaces=${workspaces.data} />`}
      ${perWorkspace && workspaceId && view === "campaigns" && html`<${Campaigns} key=${workspaceId} workspaceId=${workspaceId} />`}
      ${perWorkspace && workspaceId && view === "imports" && html`<${Imports} key=${workspaceId} workspaceId=${workspaceId} />`}
      ${perWorkspace && workspaceId && view === "sandbox" && html`<${Sandbox} key=${workspaceId} workspaceId=${workspaceId} />`}
      ${view === "jobs" && html`<${Jobs} />`}
      ${view === "webhooks" && html`<${Webhooks} />`}
      ${view === "outbox" && html`<${Outbox} />`}
    </main>`;
}

function App() {
  // null while asking; false when signed out; the session's token ({ name, token_hint, … }).
  const [signedIn, setSignedIn] = useState(null);
  // Only a 401 means signed out: a 429, a 503 or a lost connection is said, with a retry,
  // rather than showing the sign-in form to someone just signed in.
  const [failure, setFailure] = useState(null);
  const whoAmI = useCallback(
    () =>
      api("/tokens/current")
        .then((body) => {
          setFailure(null);
          setSignedIn(body.data);
        })
        .catch((error) => {
          if (error instanceof ApiProblem && error.status === 401) setSignedIn(false);
          else setFailure(error);
        }),
    [],
  );
  useEffect(() => {
    whenSignedOut(() => setSignedIn(false));
    whoAmI();
  }, []);
  if (failure) {
    return html`<main><${Problem} error=${failure} /><button onClick=${() => {
      setFailure(null);
      whoAmI();
    }}>Try again</button></main>`;
  }
  if (signedIn === null) return html`<p class="muted" role="status">Loading…</p>`;
  if (!signedIn) return html`<${SignIn} onSignedIn=${whoAmI} />`;
  return html`<${Dashboard} key=${signedIn.id} token=${signedIn} onSignOut=${() => signOut().then(() => setSignedIn(false))} />`;
}

render(html`<${App} />`, document.getElementById("app"));
