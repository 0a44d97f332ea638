// A campaign's funnel over time (sent, delivered, read, failed) drawn with uPlot, fed by the
// Server-Sent Events stream of the campaign's stats.
import htm from "htm";
import { h } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";

const html = htm.bind(h);

const series = [
  { key: "sent", label: "Sent", stroke: "#1d4ed8" },
  { key: "delivered", label: "Delivered", stroke: "#047857" },
  { key: "read", label: "Read", stroke: "#7c3aed" },
  { key: "failed", label: "Failed", stroke: "#b91c1c" },
];

const clock = new Intl.DateTimeFormat(undefined, {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

// Figures change between two readings, so the lines step rather than slope.
const stepped = uPlot.paths.stepped({ align: 1 });

// A copy of finalCampaignStatuses (contract/vocabulary.ts), at which the server's stream ends:
// the page loads no server code.
const finalStatuses = new Set(["completed", "failed", "cancelled"]);

/** Follows a campaign's stats live; the EventSource reconnects by itself after a drop. */
function useCampaignStream(workspaceId, campaignId) {
  const [state, setState] = useState({
    campaign: null,
    stats: null,
    points: [],
    live: "connecting",
    problem: null,
  });
  useEffect(() => {
    const source = new EventSource(
      `/dashboard/streams/workspaces/${encodeURIComponent(workspaceId)}/campaigns/${encodeURIComponent(campaignId)}`,
    );
    source.addEventListener("open", () => setState((s) => ({ ...s, live: "live" })));
    source.addEventListener("error", () =>
      setState((s) => ({
        ...s,
        live: source.readyState === EventSource.CLOSED ? "closed" : "reconnecting",
      })),
    );
    source.addEventListener("stats", (event) => {
      const { campaign, stats } = JSON.parse(event.data);
      const at = Date.now() / 1000;
      setState((s) => ({
        ...s,
        live: "live",
        campaign,
        stats,
        points: [...s.points, [at, ...series.map((x) => stats[x.key])]].slice(-600),
      }));
    });
    // The campaign is final and its reports settled: the service ends the stream, and the page
    // must not reconnect (that would read the API again for nothing).
    source.addEventListener("settled", () => {
      setState((s) => ({ ...s, live: "final" }));
      source.close();
    });
    source.addEventListener("problem", (event) => {
      const body = JSON.parse(event.data);
      setState((s) => ({ ...s, live: "closed", problem: body.message ?? "The stream stopped." }));
      source.close();
    });
    return () => source.close();
  }, [workspaceId, campaignId]);
  return state;
}

function Chart({ points }) {
  const element = useRef(null);
  const plot = useRef(null);
  useEffect(() => {
    const width = Math.max(280, element.current.clientWidth);
    plot.current = new uPlot(
      {
        width,
        height: 260,
        scales: { x: { time: true } },
        legend: { live: false },
        axes: [
          {
            // Whole seconds at least 80 px apart, written as a 24-hour clock.
            space: 80,
            incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600],
            values: (_u, ticks) => ticks.map((t) => clock.format(new Date(t * 1000))),
          },
          { label: "messages" },
        ],
        series: [
          {},
          ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, paths: stepped })),
        ],
      },
      [[], [], [], [], []],
      element.current,
    );
    const resize = () =>
      plot.current?.setSize({ width: Math.max(280, element.current.clientWidth), height: 260 });
    window.addEventListener("resize", resize);
    return () => {
      window.removeEventListener("resize", resize);
      plot.current?.destroy();
    };
  }, []);
  useEffect(() => {
    if (!plot.current) return;
    const columns = [0, 1, 2, 3, 4].map((i) => points.map((p) => p[i]));
    plot.current.setData(columns);
  }, [points]);
  return html`<div class="chart" ref=${element} data-points=${points.length} role="img" aria-label="Funnel over time: sent, delivered, read and failed messages"></div>`;
}

/** The live view of one campaign: figures, the chart and failures by reason. */
export function CampaignLive({ workspaceId, campaignId }) {
  const { campaign, stats, points, live, problem } = useCampaignStream(workspaceId, campaignId);
  const done = campaign && finalStatuses.has(campaign.status);
  return html`<section class="card" aria-labelledby="campaign-title">
    <h3 id="campaign-title">${campaign ? html`<bdi>${campaign.name}</bdi>` : "Campaign"}</h3>
    <p class="muted">
      Status: <strong data-testid="campaign-status">${campaign?.status ?? "…"}</strong>
      <span class=${`live live-${live}`} role="status" aria-live="polite">
        ${live === "live" ? (done ? "final" : "live") : live}
      </span>
    </p>
    ${problem && html`<p class="error" role="alert">${problem}</p>`}
    ${
      stats &&
      html`<dl class="figures" data-testid="campaign-figures">
        <div><dt>Audience</dt><dd data-testid="figure-audience_total">${stats.audience_total}</dd></div>
        <div><dt>Queued</dt><dd data-testid="figure-queued">${stats.queued}</dd></div>
        ${series.map(
          (s) =>
            html`<div><dt>${s.label}</dt><dd data-testid=${`figure-${s.key}`}>${stats[s.key]}</dd></div>`,
        )}
        <div><dt>No consent</dt><dd>${stats.skipped_no_consent}</dd></div>
        <div><dt>Opted out</dt><dd>${stats.skipped_opted_out}</dd></div>
        <div><dt>Cancelled</dt><dd data-testid="figure-cancelled">${stats.cancelled}</dd></div>
        <div><dt>Delivery rate</dt><dd>${Math.round(stats.delivery_rate * 100)}%</dd></div>
        <div><dt>Read rate</dt><dd>${Math.round(stats.read_rate * 100)}%</dd></div>
      </dl>`
    }
    <${Chart} points=${points} />
    <h4>Failures by reason</h4>
    ${
      stats?.failures.length
        ? html`<table class="stack"><thead><tr><th scope="col">Reason</th><th scope="col">Messages</th></tr></thead>
          <tbody>${stats.failures.map((f) => html`<tr><td data-label="Reason">${f.reason}</td><td data-label="Messages">${f.count}</td></tr>`)}</tbody></table>`
        : html`<p class="muted">No failures.</p>`
    }
  </section>`;
}
