import { createHash } from "node:crypto";
import { storableCopy } from "../../contract/storable-text.js";
import { importMap } from "./static-files.js";

const importMapText = JSON.stringify(importMap);
const importMapHash = createHash("sha256").update(importMapText).digest("base64");

/**
 * The Content-Security-Policy of the dashboard's pages: only the service's own files, plus the
 * one inline import map by its hash. No inline script can run, no other origin is reached.
 */
export const dashboardCsp = [
  "default-src 'self'",
  `script-src 'self' 'sha256-${importMapHash}'`,
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

/**
 * The dashboard's HTML shell; the Preact app in app.js renders everything inside it. Like
 * simplePage, it names an empty icon (data:), so no browser asks for a /favicon.ico that is not
 * there (a 404 in the console of every page).
 */
export function dashboardShell(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Reseller dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/vendor/uplot.css">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script type="importmap">${importMapText}</script>
<script type="module" src="/dashboard/assets/app.js"></script>
</head>
<body>
<div id="app"><noscript><p>The dashboard needs JavaScript. The same data is in the API: see /docs.</p></noscript></div>
</body>
</html>
`;
}

/**
 * Escapes text for HTML element content and attribute values. A NUL character or half of a
 * surrogate pair (text the service refuses, shown back in a form) becomes U+FFFD, as a browser
 * would show it: neither is text a page should carry.
 */
export function escapeHtml(text: string): string {
  return storableCopy(text)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** A small server-rendered page (sign-in link problems, the sign-up page) in the same style. */
export function simplePage(title: string, body: string, lang = "en"): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
</head>
<body>
<main class="narrow">
${body}
</main>
</body>
</html>
`;
}
