import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServedService, startServe } from "../helpers/serve.js";
import {
  chromiumInstallMs,
  ensureChromium,
  type HeadlessBrowser,
  launchChromium,
  phone,
  screenshot,
} from "./chromium.js";

// End to end in a real browser: the built `reseller serve`, Debian's headless Chromium driven by
// playwright-core, and only what a person would do on the pages.

interface Envelope {
  data: Record<string, unknown> & { id: string };
}

let service: ServedService;
let browser: HeadlessBrowser;
let call: (method: string, path: string, body?: unknown) => Promise<Envelope["data"]>;
let workspaceId: string;
let campaignId: string;
let importId: string;

/** Contacts of the campaign: every one opted in; two are the sandbox's magic numbers. */
const recipients = [
  ["Ada", "+4915112345601"],
  ["Ben", "+4915112345602"],
  ["Cleo", "+4915112345603"],
  // Refused at send: fails with reason undeliverable.
  ["Dan", "+4915112344001"],
  // Delivered, never read.
  ["Eve", "+4915112344010"],
] as const;

async function signIn(page: Page): Promise<void> {
  await page.goto(`${service.url}/dashboard`);
  await page.getByLabel("Reseller token").fill(service.token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Sections" }).waitFor();
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("condition not reached in 20 s");
}

beforeAll(async () => {
  ensureChromium();
  service = await startServe({ args: ["--review-delay", "0", "--sign-in-link"] });
  call = async (method, path, body) => {
    const response = await fetch(`${service.url}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${service.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await response.json()) as Envelope;
    if (!response.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json.data;
  };
  workspaceId = (
    await call("POST", "/workspaces", {
      name: "Café Olé",
      contact_email: "owner@cafe-ole.test",
      plan_id: "2",
    })
  ).id;
  const base = `/workspaces/${workspaceId}`;
  const channel = await call("POST", `${base}/channels`, { phone: "+4915112340000", name: "Main" });
  const template = await call("POST", `${base}/templates`, {
    name: "weekly_news",
    category: "marketing",
    language: "en",
    components: [
      { type: "BODY", text: "Hi {{1}}, this week's news.", example: { body_text: [["Ada"]] } },
    ],
  });
  await until(
    () => call("GET", `${base}/templates/${template.id}`),
    (t) => t.status === "approved",
  );
  for (const [name, number] of recipients) {
    await call("POST", `${base}/contacts`, {
      phone: number,
      first_name: name,
      opt_in_status: "opted_in",
      opt_in_source: "shop counter",
    });
  }
  campaignId = (
    await call("POST", `${base}/campaigns`, {
      name: "Weekly news",
      channel_id: channel.id,
      template_name: "weekly_news",
      template_language: "en",
      audience: { all: true },
      variable_mapping: { "1": "first_name" },
    })
  ).id;
  const csv =
    "phone,first_name\n+4915112345700,Fay\nnot-a-number,Gus\n+4915112345702,Hal\n12,Ivy\n";
  importId = (
    await call("POST", `${base}/contacts/import`, {
      csv: Buffer.from(csv).toString("base64"),
      duplicate_handling: "update",
    })
  ).id;
  await until(
    () => call("GET", `${base}/contacts/imports/${importId}`),
    (i) => i.status === "completed",
  );
  browser = await launchChromium();
}, 120_000 + chromiumInstallMs);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe("the dashboard in a browser", () => {
  it("signs in with a reseller token and shows the workspaces with usage against plan limits", async () => {
    const page = await browser.freshPage();
    await page.goto(`${service.url}/dashboard`);
    await screenshot(page, "dashboard-sign-in");
    await page.getByLabel("Reseller token").fill("rsk_not_a_real_token_0000");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toContain("not a valid reseller token");

    await signIn(page);
    const row = page.getByRole("row", { name: /Café Olé/ });
    await row.waitFor();
    await expect.poll(() => row.textContent()).toMatch(/Contacts: \d+ \/ 5000/);
    expect(await row.textContent()).toContain("Starter");
    await screenshot(page, "dashboard-workspaces");
    await page.close();
  });

  it("keeps the session in an HttpOnly, SameSite=Strict cookie that page scripts cannot read", async () => {
    const page = await browser.freshPage();
    await signIn(page);
    const cookies = await browser.context.cookies(`${service.url}/dashboard`);
    const session = cookies.find((c) => c.name === "reseller_dashboard");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/dashboard" });
    expect(await page.evaluate<string>("document.cookie")).not.toContain("reseller_dashboard");
    expect(page.url()).not.toContain(service.token);
    await page.close();
  });

  it("watches a campaign's chart reach its final figures without a reload", async () => {
    const page = await browser.freshPage();
    await signIn(page);
    await page.getByRole("link", { name: "Campaigns" }).click();
    await page.getByRole("button", { name: "Weekly news" }).click();
    await expect.poll(() => page.getByTestId("campaign-status").textContent()).toBe("draft");
    const loads: string[] = [];
    page.on("framenavigated", (frame) => loads.push(frame.url()));

    await call("POST", `/workspaces/${workspaceId}/campaigns/${campaignId}/launch`);
    const figure = (key: string) => page.getByTestId(`figure-${key}`).textContent();
    await expect.poll(() => figure("read"), { timeout: 20_000 }).toBe("3");
    await expect
      .poll(() => page.getByTestId("campaign-status").textContent(), { timeout: 10_000 })
      .toBe("completed");
    expect({
      sent: await figure("sent"),
      delivered: await figure("delivered"),
      read: await figure("read"),
      failed: await figure("failed"),
      queued: await figure("queued"),
    }).toEqual({ sent: "4", delivered: "4", read: "3", failed: "1", queued: "0" });
    // The same figures as the API's stats, and the failure reason under the chart.
    const stats = await call("GET", `/workspaces/${workspaceId}/campaigns/${campaignId}/stats`);
    expect(stats).toMatchObject({ sent: 4, delivered: 4, read: 3, failed: 1 });
    const failures = page.getByRole("row", { name: /undeliverable/ });
    expect(await failures.textContent()).toContain("1");
    expect(await page.locator(".chart canvas").count()).toBeGreaterThan(0);
    // The chart grew point by point as the figures changed: draft, sent, delivered, read.
    expect(Number(await page.locator(".chart").getAttribute("data-points"))).toBeGreaterThanOrEqual(
      3,
    );
    expect(loads.filter((url) => url.includes("/dashboard"))).toEqual([]);
    await screenshot(page, "dashboard-campaign");
    await page.close();
  }, 40_000);

  it("shows a cancelled campaign's cancelled recipients, so its figures add up to the audience", async () => {
    const base = `/workspaces/${workspaceId}`;
    const weekly = await call("GET", `${base}/campaigns/${campaignId}`);
    const cancelled = await call("POST", `${base}/campaigns`, {
      name: "Called off",
      channel_id: weekly.channel_id,
      template_name: "weekly_news",
      template_language: "en",
      audience: { all: true },
      variable_mapping: { "1": "first_name" },
    });
    await call("POST", `${base}/campaigns/${cancelled.id}/cancel`);
    const stats = await call("GET", `${base}/campaigns/${cancelled.id}/stats`);
    expect(stats.cancelled).toBeGreaterThan(0);
    const page = await browser.freshPage();
    await signIn(page);
    await page.getByRole("link", { name: "Campaigns" }).click();
    await page.getByRole("button", { name: "Called off" }).click();
    await expect
      .poll(() => page.getByTestId("figure-cancelled").textContent())
      .toBe(String(stats.cancelled));
    await page.close();
  });

  it("opens an import's row errors", async () => {
    const page = await browser.freshPage();
    await signIn(page);
    await page.getByRole("link", { name: "Imports" }).click();
    await page.getByText("2 of 4 rows").or(page.getByText("4 of 4 rows")).first().waitFor();
    await page.getByRole("button", { name: /Show 2 row errors/ }).click();
    const table = page.getByTestId("import-errors");
    await table.waitFor();
    const text = await table.textContent();
    expect(text).toContain("not-a-number");
    expect(await table.locator("tbody tr").count()).toBe(2);
    await screenshot(page, "dashboard-imports");
    await page.close();
  });

  it("lists jobs, the invitation outbox, and an empty state or the deliveries for webhooks", async () => {
    const page = await browser.freshPage();
    await signIn(page);
    await page.getByRole("link", { name: "Jobs" }).click();
    await page
      .getByRole("cell", { name: /campaign cmp_/ })
      .first()
      .waitFor();
    await screenshot(page, "dashboard-jobs");
    await page.getByRole("link", { name: "Outbox" }).click();
    await page.getByText("owner@cafe-ole.test").first().waitFor();
    await page
      .getByText(/invited to your workspace Café Olé/)
      .first()
      .click();
    await page
      .getByText(/register\?workspace=/)
      .first()
      .waitFor();
    await screenshot(page, "dashboard-outbox");
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.locator(".empty, .card").first().waitFor();
    await page.close();
  });

  it("sends an inbound STOP from the sandbox controls, and the contact is opted out", async () => {
    const page = await browser.freshPage();
    await signIn(page);
    await page.getByRole("link", { name: "Sandbox" }).click();
    await page.getByLabel("From (E.164)").fill("+4915112345601");
    await page.getByLabel("Text").selectOption("STOP");
    await page.getByRole("button", { name: "Send reply" }).click();
    await page.getByText("Sent “STOP” from +4915112345601.").waitFor();
    const contacts = (await (
      await fetch(`${service.url}/api/v1/workspaces/${workspaceId}/contacts?search=5601`, {
        headers: { authorization: `Bearer ${service.token}` },
      })
    ).json()) as { data: { opt_in_status: string }[] };
    expect(contacts.data[0]?.opt_in_status).toBe("opted_out");
    await screenshot(page, "dashboard-sandbox");
    await page.close();
  });

  it("reviews a template from the sandbox controls: pause, then approve again", async () => {
    const page = await browser.freshPage();
    await signIn(page);
    await page.getByRole("link", { name: "Sandbox" }).click();
    const template = page.getByRole("listitem").filter({ hasText: "weekly_news" });
    await template.getByRole("button", { name: "Pause" }).click();
    await page.getByText("Template paused.").waitFor();
    await template.getByText("paused", { exact: true }).waitFor();
    const paused = await call("GET", `/workspaces/${workspaceId}/templates?per_page=10`);
    expect((paused as unknown as { status: string }[])[0]?.status).toBe("paused");
    await template.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Template approved.").waitFor();
    await template.getByText("approved", { exact: true }).waitFor();
    await page.close();
  });

  it("signs in once through the link serve printed; the link is then worthless", async () => {
    const link = /one-time sign-in link[^:]*: (http\S+)/.exec(service.stderr())?.[1];
    expect(link).toBeDefined();
    const page = await browser.freshPage();
    await page.goto(link as string);
    await page.getByRole("navigation", { name: "Sections" }).waitFor();
    expect(page.url()).toBe(`${service.url}/dashboard`);
    await browser.context.clearCookies();
    const again = await page.goto(link as string);
    expect(again?.status()).toBe(400);
    expect(await page.getByRole("heading").first().textContent()).toContain("no longer valid");
    await page.close();
  });

  it("gives every control of every view a name a screen reader can say", async () => {
    const page = await browser.freshPage();
    await signIn(page);
    const unnamed = `[...document.querySelectorAll("input:not([type=hidden]), select, button, progress")]
      .filter((el) => !el.closest("[aria-hidden=true]"))
      .filter((el) => !(el.labels?.length || el.getAttribute("aria-label") || el.getAttribute("aria-labelledby") || (el.tagName === "BUTTON" && el.textContent.trim())))
      .map((el) => el.outerHTML.slice(0, 80))`;
    for (const view of ["Workspaces", "Campaigns", "Imports", "Jobs", "Outbox", "Sandbox"]) {
      await page.getByRole("link", { name: view }).click();
      await page.getByRole("heading", { level: 1, name: view }).waitFor();
      await page.waitForLoadState("networkidle");
      expect(await page.evaluate<string[]>(unnamed), view).toEqual([]);
    }
    await page.goto(`${service.url}/register?plan=starter-monthly`);
    expect(await page.evaluate<string[]>(unnamed), "register").toEqual([]);
    await page.close();
  });

  it("fits a phone's width and can be used with the keyboard alone", async () => {
    const page = await browser.freshPage();
    await page.setViewportSize(phone);
    await page.goto(`${service.url}/dashboard`);
    await page.getByLabel("Reseller token").waitFor();
    await page.keyboard.press("Tab");
    await page.keyboard.type(service.token);
    await page.keyboard.press("Enter");
    await page.getByRole("navigation", { name: "Sections" }).waitFor();
    await page.getByRole("row", { name: /Café Olé/ }).waitFor();
    const overflow = await page.evaluate<number>(
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, "dashboard-phone");
    await page.close();
  });

  it("folds an import's row errors into one labelled card per row at a phone's width", async () => {
    const page = await browser.freshPage();
    await page.setViewportSize(phone);
    await signIn(page);
    await page.getByRole("link", { name: "Imports" }).click();
    await page.getByLabel("Workspace").selectOption({ label: "Café Olé" });
    await page.getByRole("button", { name: /Show 2 row errors/ }).click();
    const firstCell = "[data-testid=import-errors] tbody td";
    const cell = page.locator(firstCell).first();
    await cell.waitFor();
    expect(await cell.getAttribute("data-label")).toBe("Row");
    expect(
      await page.evaluate<string>(
        `getComputedStyle(document.querySelector("${firstCell}")).display`,
      ),
    ).toBe("block");
    expect(
      await page.evaluate<string>(
        `getComputedStyle(document.querySelector("${firstCell}"), "::before").content`,
      ),
    ).toBe('"Row"');
    const overflow = await page.evaluate<number>(
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await page.close();
  });

  it("shows nothing of the previous workspace after switching, even while the new one's answers are slow", async () => {
    const other = await call("POST", "/workspaces", {
      name: "Zweiter Laden",
      contact_email: "owner@zweiter.test",
      send_invitation: false,
    });
    await call("POST", `/workspaces/${other.id}/templates`, {
      name: "other_news",
      category: "marketing",
      language: "en",
      components: [{ type: "BODY", text: "Hello from the other shop." }],
    });
    const page = await browser.freshPage();
    await signIn(page);
    await page.getByRole("link", { name: "Sandbox" }).click();
    const picker = page.getByLabel("Workspace");
    await picker.selectOption({ label: "Café Olé" });
    await page.getByRole("listitem").filter({ hasText: "weekly_news" }).waitFor();
    await page.getByLabel("From (E.164)").fill("+4915112345699");
    await page.getByRole("button", { name: "Send reply" }).click();
    await page.getByText("Sent “STOP” from +4915112345699.").waitFor();
    // The other workspace answers slowly: until it does, its view shows nothing of Café Olé's.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(`**/dashboard/api/v1/workspaces/${other.id}/**`, async (route) => {
      await released;
      await route.continue();
    });
    await picker.selectOption({ label: "Zweiter Laden" });
    await page.waitForTimeout(300);
    expect(await page.getByText("weekly_news").count()).toBe(0);
    expect(await page.getByRole("button", { name: /Pause|Approve/ }).count()).toBe(0);
    expect(await page.getByText("Sent “STOP”").count()).toBe(0);
    release();
    await page.getByRole("listitem").filter({ hasText: "other_news" }).waitFor();
    expect(await page.getByText("weekly_news").count()).toBe(0);
    // A late answer for the workspace left behind is dropped, not shown under the new one.
    await picker.selectOption({ label: "Café Olé" });
    await page.getByRole("listitem").filter({ hasText: "weekly_news" }).waitFor();
    await page.close();
  });

  it("isolates names people typed, so a right-to-left override cannot reorder the text around them", async () => {
    await call("POST", "/workspaces", {
      name: "Evil\u202Emoc.liamg",
      contact_email: "owner@evil.test",
      send_invitation: false,
    });
    const page = await browser.freshPage();
    await signIn(page);
    const name = page.locator("bdi", { hasText: "Evil\u202Emoc.liamg" });
    await name.waitFor();
    expect(
      await page.evaluate<string>(
        `getComputedStyle([...document.querySelectorAll("bdi")].find((el) => el.textContent.startsWith("Evil"))).unicodeBidi`,
      ),
    ).toBe("isolate");
    await page.close();
  });

  it("names each template's review buttons, and ties a sign-in error to the token field", async () => {
    const page = await browser.freshPage();
    await page.goto(`${service.url}/dashboard`);
    await page.getByLabel("Reseller token").fill("rsk_not_a_real_token_0000");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    const describedBy = await page.getByLabel("Reseller token").getAttribute("aria-describedby");
    const ids = (describedBy ?? "").split(" ");
    const texts = await Promise.all(ids.map((id) => page.locator(`#${id}`).textContent()));
    expect(texts.join(" ")).toContain("not a valid reseller token");
    await signIn(page);
    await page.getByRole("link", { name: "Sandbox" }).click();
    await page.getByLabel("Workspace").selectOption({ label: "Café Olé" });
    await page.getByRole("button", { name: "Pause weekly_news", exact: true }).waitFor();
    await page.close();
  });

  it("says which token it is signed in with, and offers no picker when the workspaces cannot be read", async () => {
    const current = await call("GET", "/tokens/current");
    const page = await browser.freshPage();
    await signIn(page);
    expect(await page.getByTestId("signed-in-as").textContent()).toContain(String(current.name));
    await page.close();

    const narrow = (await call("POST", "/tokens", {
      name: "Pricing page",
      scopes: ["plans:read"],
    })) as unknown as { token: string };
    const limited = await browser.freshPage();
    await limited.goto(`${service.url}/dashboard#/campaigns`);
    await limited.getByLabel("Reseller token").fill(narrow.token);
    await limited.getByRole("button", { name: "Sign in" }).click();
    await limited.getByRole("alert").waitFor();
    expect(await limited.getByTestId("signed-in-as").textContent()).toContain("Pricing page");
    expect(await limited.getByText("No workspaces yet.").count()).toBe(0);
    expect(await limited.getByLabel("Workspace").count()).toBe(0);
    await limited.close();
  });

  it("says a failure to read who is signed in, with a retry, rather than showing the sign-in form again", async () => {
    const page = await browser.freshPage();
    let armed = false;
    await page.route("**/dashboard/api/v1/tokens/current", async (route) => {
      // The first ask after signing in meets a service that is restarting.
      if (armed) {
        armed = false;
        await route.fulfill({
          status: 503,
          contentType: "application/json",
          body: JSON.stringify({
            status: "error",
            error_code: "service_unavailable",
            message: "The service is starting; try again.",
            details: [],
          }),
        });
      } else {
        await route.continue();
      }
    });
    await page.goto(`${service.url}/dashboard`);
    await page.getByLabel("Reseller token").fill(service.token);
    armed = true;
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "The service is starting" }).waitFor();
    expect(await page.getByLabel("Reseller token").count()).toBe(0);
    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByRole("navigation", { name: "Sections" }).waitFor();
    await page.close();
  });

  it("asks for no favicon that is not there: no console errors on the dashboard or the sign-up page", async () => {
    const page = await browser.freshPage();
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    const notFound: string[] = [];
    page.on("response", (response) => {
      if (response.status() === 404) notFound.push(response.url());
    });
    await signIn(page);
    await page.waitForLoadState("networkidle");
    await page.goto(`${service.url}/register?plan=starter-monthly`);
    await page.waitForLoadState("networkidle");
    await page.waitForTimeout(500);
    expect(notFound).toEqual([]);
    // (Before signing in, the page's "who am I" call answers 401, which Chromium logs too.)
    expect(errors.filter((text) => /404|favicon/i.test(text))).toEqual([]);
    await page.close();
  });
});

describe("the sign-up page of a plan's registration_url", () => {
  it("signs a client up, and the workspace is found through the API", async () => {
    const plans = (await call("GET", "/plans")) as unknown as Record<
      string,
      { slug: string; registration_url: string }[]
    >;
    const starter = Object.values(plans)
      .flat()
      .find((p) => p.slug === "starter-monthly");
    const page = await browser.freshPage();
    // A visitor whose browser asks for German: the catalogue's dollars, written the German way.
    await page.route("**/register?*", (route) =>
      route.continue({
        headers: { ...route.request().headers(), "accept-language": "de-DE,de;q=0.9,en;q=0.5" },
      }),
    );
    await page.goto(starter?.registration_url.replace(/^https?:\/\/[^/]+/, service.url) ?? "");
    // Intl puts a no-break space between the amount and the symbol.
    expect(await page.locator(".price").textContent()).toMatch(/^29,00\s\$ \/ month$/);
    await page.getByLabel("Business name").fill("Bäckerei Körner");
    await page.getByLabel("Contact email").fill("info@koerner.test");
    await screenshot(page, "register");
    await page.getByRole("button", { name: "Create my workspace" }).click();
    await page.getByRole("heading", { name: "Welcome, Bäckerei Körner" }).waitFor();

    const found = await call("GET", "/workspaces?per_page=100");
    const workspaces = found as unknown as {
      name: string;
      status: string;
      plan: { slug: string };
    }[];
    expect(workspaces.find((w) => w.name === "Bäckerei Körner")).toMatchObject({
      status: "active",
      plan: { slug: "starter-monthly" },
    });
    await page.close();
  });

  it("shows what is wrong with the form next to the field, keeping what was typed", async () => {
    const page = await browser.freshPage();
    await page.goto(`${service.url}/register?plan=free-trial`);
    await page.getByLabel("Business name").fill("Trial Shop");
    await page.getByLabel("Contact email").fill("not an email");
    await page.getByRole("button", { name: "Create my workspace" }).click();
    await page.getByRole("alert").waitFor();
    const email = page.getByLabel("Contact email");
    expect(await email.getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Business name").inputValue()).toBe("Trial Shop");
    expect(await page.locator("#contact_email-error").textContent()).toContain("email address");
    await page.close();
  });

  // Last: it adds a hundred workspaces.
  it("lists every workspace, past the API's 100 a page, fifty rows at a time with a filter, and offers each in the picker", async () => {
    for (let i = 1; i <= 100; i++) {
      await call("POST", "/workspaces", {
        name: `Client ${i}`,
        contact_email: `c${i}@example.test`,
        send_invitation: false,
      });
    }
    const page = await browser.freshPage();
    const usageAsked = new Set<string>();
    page.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      if (/^\/dashboard\/api\/v1\/workspaces\/ws_[^/]+$/.test(path)) usageAsked.add(path);
    });
    await page.goto(`${service.url}/dashboard`);
    await signIn(page);
    const more = page.getByRole("button", { name: /Show more \(50 of 10\d shown\)/ });
    await more.waitFor();
    expect(await page.locator("tbody tr").count()).toBe(50);
    // Each row shown asks for its usage; the rows not shown ask nothing.
    await page.waitForLoadState("networkidle");
    expect(usageAsked.size).toBe(50);
    // The first workspace made is the oldest: on the list's second page, found by the filter.
    await page.getByLabel("Find a workspace").fill("café");
    await page.getByRole("row", { name: /Café Olé/ }).waitFor();
    await page.getByLabel("Find a workspace").fill("");
    await more.click();
    await page.getByRole("button", { name: /Show more \(100 of 10\d shown\)/ }).click();
    await page.getByRole("row", { name: /Café Olé/ }).waitFor();
    await page.goto(`${service.url}/dashboard#/campaigns`);
    const picker = page.getByLabel("Workspace");
    await picker.waitFor();
    expect(await picker.locator("option").allTextContents()).toContain("Café Olé");
    await page.close();
  }, 120_000);
});
