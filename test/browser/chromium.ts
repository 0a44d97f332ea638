import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Debian's chromium package; `.ci/run` installs it when missing. No browser is downloaded. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** How long installing Debian's chromium may take (the package lists and about 100 MB). */
export const chromiumInstallMs = 600_000;

/**
 * Makes sure Debian's chromium is there: when it is missing and the tests run as root (a fresh
 * CI machine), it is installed with apt-get, as `.ci/run` does, so that `npm test` needs nothing
 * installed first. Otherwise a missing browser is an error that says how to install it.
 */
export function ensureChromium(): void {
  if (existsSync(chromiumPath)) return;
  if (process.env.CHROMIUM_PATH === undefined && process.getuid?.() === 0) {
    spawnSync("sh", ["-c", "apt-get update -qq && apt-get install -y -qq chromium"], {
      stdio: "ignore",
      timeout: chromiumInstallMs,
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  }
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `Chromium is missing at ${chromiumPath}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  }
}

/** Where `SCREENSHOTS=1` runs write the README's pictures of the main views. */
export const imagesDir = resolve(import.meta.dirname, "../../docs/images");

export const desktop = { width: 1280, height: 860 };
export const phone = { width: 390, height: 844 };

/** A headless Chromium on a fresh profile directory, and a way to close both. */
export interface HeadlessBrowser {
  context: BrowserContext;
  /** A new tab at a desktop width, with the profile's cookies cleared first. */
  freshPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Starts Debian's Chromium headless, offline-friendly: no sync, updates or first-run UI. */
export async function launchChromium(): Promise<HeadlessBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "reseller-chromium-"));
  // Playwright passes the profile as Chromium's --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    viewport: desktop,
    deviceScaleFactor: 1,
    locale: "en-US",
  });
  return {
    context,
    freshPage: async () => {
      await context.clearCookies();
      return context.newPage();
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot into docs/images when the run was asked to (SCREENSHOTS=1). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS !== "1") return;
  await page.screenshot({ path: join(imagesDir, `${name}.png`), fullPage: true });
}
