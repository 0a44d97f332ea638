import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkspaceListResponse } from "../../src/contract/workspaces.js";
import { buildApp } from "../../src/service/app.js";
import { bootstrap } from "../../src/service/bootstrap.js";
import { defaultRateLimit } from "../../src/service/config.js";
import { formatPrice, visitorLocale } from "../../src/service/dashboard/sign-up.js";
import { openDatabase } from "../../src/service/db/database.js";
import {
  adminToken,
  publicUrl,
  startTestApp,
  type TestApp,
  TestClock,
} from "../helpers/test-app.js";

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe("GET /register?plan=<slug>: the sign-up page a plan's registration_url points to", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const post = (fields: Record<string, string>, ip = "203.0.113.7") =>
    t.app.inject({
      method: "POST",
      url: "/register",
      remoteAddress: ip,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: form(fields),
    });

  const workspaces = async () =>
    WorkspaceListResponse.parse((await t.request("GET", "/api/v1/workspaces?per_page=100")).json())
      .data;

  it("is where every public plan's registration_url leads", async () => {
    const plans = (await t.request("GET", "/api/v1/plans")).json() as {
      data: Record<string, { slug: string; registration_url: string }[]>;
    };
    for (const plan of Object.values(plans.data).flat()) {
      const url = plan.registration_url.replace(publicUrl, "");
      const page = await t.app.inject({ method: "GET", url });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers["content-type"]).toContain("text/html");
    }
  });

  it("shows the plan's price in the catalogue's currency, written for the visitor's locale", async () => {
    const german = await t.app.inject({
      method: "GET",
      url: "/register?plan=starter-monthly",
      headers: { "accept-language": "de-DE,de;q=0.9,en;q=0.8" },
    });
    expect(german.body).toMatch(/29,00\s\$ \/ month/);
    expect(german.body).toContain("Contacts: 5.000");
    const american = await t.app.inject({
      method: "GET",
      url: "/register?plan=starter-monthly",
      headers: { "accept-language": "en-US" },
    });
    expect(american.body).toContain("$29.00 / month");
    expect(american.body).toContain('<label for="business_name">Business name</label>');
    expect(american.body).toContain('<label for="contact_email">Contact email</label>');
  });

  it("refuses a form larger than it takes with a 413 stating its own limit (16 KB)", async () => {
    const res = await post({ plan: "starter-monthly", business_name: "x".repeat(20_000) });
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toContain("at most 16 KB");
  });

  it("answers 404 with the plans that are open for an unknown or private plan", async () => {
    const page = await t.app.inject({ method: "GET", url: "/register?plan=gold" });
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain("No plan called <code>gold</code>");
    expect(page.body).toContain('href="/register?plan=starter-monthly"');
    const none = await t.app.inject({ method: "GET", url: "/register" });
    expect(none.statusCode).toBe(404);
  });

  it("creates an active workspace with its invitation for a paid plan", async () => {
    const page = await post({
      plan: "starter-monthly",
      business_name: "  Bäckerei Körner ",
      contact_email: "info@koerner.test",
      website: "",
    });
    expect(page.statusCode).toBe(201);
    expect(page.body).toContain("Welcome, Bäckerei Körner");
    const [created] = await workspaces();
    expect(created).toMatchObject({
      name: "Bäckerei Körner",
      contact_email: "info@koerner.test",
      status: "active",
      plan: { slug: "starter-monthly" },
      invitation: { sent: true },
    });
    const outbox = (await t.request("GET", "/api/v1/outbox")).json() as {
      data: { to: string; kind: string }[];
    };
    expect(outbox.data).toEqual([
      expect.objectContaining({ to: "info@koerner.test", kind: "invitation" }),
    ]);
  });

  it("sends an invitation that says nothing the visitor typed, so the form cannot carry anyone's words to any address", async () => {
    const page = await post({
      plan: "starter-monthly",
      business_name: "URGENT: verify your bank account at https://evil.example/login",
      contact_email: "victim@example.test",
    });
    expect(page.statusCode).toBe(201);
    const outbox = (await t.request("GET", "/api/v1/outbox")).json() as {
      data: { to: string; subject: string; text: string }[];
    };
    const [mail] = outbox.data;
    expect(mail?.to).toBe("victim@example.test");
    expect(mail?.subject).toBe("Your new workspace is ready");
    expect(mail?.text).toContain("through the sign-up page");
    expect(mail?.text).toContain("Starter");
    for (const typed of ["URGENT", "evil.example", "bank"]) {
      expect(`${mail?.subject}\n${mail?.text}`).not.toContain(typed);
    }
    // A workspace the reseller creates through the API is invited by its name, as before.
    await t.request("POST", "/api/v1/workspaces", {
      body: { name: "Bäckerei Körner", contact_email: "k@koerner.test" },
    });
    const again = (await t.request("GET", "/api/v1/outbox")).json() as {
      data: { to: string; subject: string }[];
    };
    expect(again.data.find((entry) => entry.to === "k@koerner.test")?.subject).toBe(
      "You're invited to your workspace Bäckerei Körner",
    );
  });

  it("starts a trial on a free plan with trial days", async () => {
    await post({ plan: "free-trial", business_name: "Trial Shop", contact_email: "a@trial.test" });
    const [created] = await workspaces();
    expect(created?.status).toBe("trial");
    expect(created?.trial_ends_at).toBe("2026-12-06T09:30:00Z");
  });

  it("shows the form again with each problem beside its field, creating nothing", async () => {
    const page = await post({ plan: "starter-monthly", business_name: " ", contact_email: "nope" });
    expect(page.statusCode).toBe(422);
    expect(page.body).toContain('id="business_name-error"');
    expect(page.body).toContain('id="contact_email-error"');
    expect(page.body).toContain('value="nope"');
    expect(page.body).toContain('aria-invalid="true"');
    expect(await workspaces()).toEqual([]);
  });

  const submissionOf = (html: string) => /name="submission" value="([^"]+)"/.exec(html)?.[1] ?? "";

  it("creates one workspace for a form sent twice (a double click, a reload), answering both alike", async () => {
    const shown = await t.app.inject({ method: "GET", url: "/register?plan=starter-monthly" });
    const fields = {
      plan: "starter-monthly",
      submission: submissionOf(shown.body),
      business_name: "Double Click Ltd",
      contact_email: "dc@example.test",
    };
    const [first, second] = await Promise.all([post(fields), post(fields)]);
    const again = await post(fields);
    for (const page of [first, second, again]) {
      expect(page.statusCode).toBe(201);
      expect(page.body).toContain("Welcome, Double Click Ltd");
    }
    expect((await workspaces()).map((w) => w.name)).toEqual(["Double Click Ltd"]);
    // Another form shown is another sign-up.
    const next = await t.app.inject({ method: "GET", url: "/register?plan=starter-monthly" });
    expect(submissionOf(next.body)).not.toBe(fields.submission);
    await post({ ...fields, submission: submissionOf(next.body) });
    expect(await workspaces()).toHaveLength(2);
  });

  it("creates one more workspace for a form changed after its first sign-up, however often that one is sent", async () => {
    const shown = await t.app.inject({ method: "GET", url: "/register?plan=starter-monthly" });
    const fields = {
      plan: "starter-monthly",
      submission: submissionOf(shown.body),
      business_name: "Corner Shop",
      contact_email: "a@corner.test",
    };
    await post(fields);
    await post(fields);
    const changed = { ...fields, contact_email: "b@corner.test" };
    const [first, second] = await Promise.all([post(changed), post(changed)]);
    const again = await post(changed);
    for (const page of [first, second, again]) expect(page.statusCode).toBe(201);
    expect((await workspaces()).map((w) => w.contact_email).sort()).toEqual([
      "a@corner.test",
      "b@corner.test",
    ]);
  });

  it("lets a form corrected after a mistake through, keeping its submission", async () => {
    const shown = await t.app.inject({ method: "GET", url: "/register?plan=starter-monthly" });
    const submission = submissionOf(shown.body);
    const fields = { plan: "starter-monthly", submission, business_name: "Fixed Co" };
    const mistaken = await post({ ...fields, contact_email: "nope" });
    expect(mistaken.statusCode).toBe(422);
    expect(submissionOf(mistaken.body)).toBe(submission);
    const corrected = await post({ ...fields, contact_email: "fixed@example.test" });
    expect(corrected.statusCode).toBe(201);
    expect((await workspaces()).map((w) => w.contact_email)).toEqual(["fixed@example.test"]);
  });

  it("refuses a business name holding a NUL character beside its field, on both engines, creating nothing", async () => {
    const page = await post({
      plan: "starter-monthly",
      business_name: "Acme\u0000Bakery",
      contact_email: "owner@acme.test",
    });
    expect(page.statusCode).toBe(422);
    expect(page.body).toContain('id="business_name-error"');
    expect(page.body).toContain("NUL character");
    // The form shows the name back as a browser would show it, without the NUL.
    expect(page.body).toContain('value="Acme\ufffdBakery"');
    expect(page.body).not.toContain("\u0000");
    expect(await workspaces()).toEqual([]);
  });

  it("refuses an email holding a bidi override or another invisible format character, in the form and the API", async () => {
    // Shown on a page, "\u202Emoc.live@a.test" (an address at a.test) reads "tset.a@evil.com".
    for (const [email, named] of [
      ["\u202Emoc.live@a.test", "U+202E"],
      ["a\u2066b@a.test", "U+2066"],
      ["a\u200Bb@a.test", "U+200B"],
    ] as const) {
      const page = await post({
        plan: "starter-monthly",
        business_name: "Acme",
        contact_email: email,
      });
      expect(page.statusCode, JSON.stringify(email)).toBe(422);
      expect(page.body).toContain('id="contact_email-error"');
      const api = await t.request("POST", "/api/v1/workspaces", {
        body: { name: "Acme", contact_email: email },
      });
      expect(api.statusCode, JSON.stringify(email)).toBe(422);
      expect(api.json().details).toEqual([
        {
          field: "contact_email",
          message: `contact_email holds an invisible character (${named}) that no address has: type the address again`,
        },
      ]);
    }
    expect(await workspaces()).toEqual([]);
  });

  it("names an empty data: icon that its policy allows, so a browser asks for no /favicon.ico", async () => {
    const page = await t.app.inject({ method: "GET", url: "/register?plan=starter-monthly" });
    expect(page.body).toContain('<link rel="icon" href="data:,">');
    expect(page.headers["content-security-policy"]).toMatch(/img-src [^;]*data:/);
  });

  it("tells a bot that filled the hidden field it succeeded, and creates nothing", async () => {
    const page = await post({
      plan: "starter-monthly",
      business_name: "Spam Inc",
      contact_email: "bot@spam.test",
      website: "https://spam.test",
    });
    expect(page.statusCode).toBe(201);
    expect(page.body).toContain("Welcome, Spam Inc");
    expect(await workspaces()).toEqual([]);
  });

  it("counts the addresses of one IPv6 /64 network as one visitor", async () => {
    for (let i = 0; i < 5; i++) {
      const ok = await post(
        { plan: "starter-monthly", business_name: `Shop ${i}`, contact_email: `s${i}@shop.test` },
        `2001:db8:1:2::${i + 1}`,
      );
      expect(ok.statusCode).toBe(201);
    }
    const sameNetwork = await post(
      { plan: "starter-monthly", business_name: "Shop 6", contact_email: "s6@shop.test" },
      "2001:db8:1:2:ffff:ffff:ffff:ffff",
    );
    expect(sameNetwork.statusCode).toBe(429);
    const otherNetwork = await post(
      { plan: "starter-monthly", business_name: "Other", contact_email: "o@other.test" },
      "2001:db8:1:3::1",
    );
    expect(otherNetwork.statusCode).toBe(201);
  });

  it("does not count a form shown again for a mistake against the five sign-ups", async () => {
    for (let i = 0; i < 3; i++) {
      const mistyped = await post({
        plan: "starter-monthly",
        business_name: "Shop",
        contact_email: "not-an-email",
      });
      expect(mistyped.statusCode).toBe(422);
    }
    for (let i = 0; i < 5; i++) {
      const ok = await post({
        plan: "starter-monthly",
        business_name: `Shop ${i}`,
        contact_email: `s${i}@shop.test`,
      });
      expect(ok.statusCode).toBe(201);
    }
    expect(await workspaces()).toHaveLength(5);
  });

  it("limits sign-ups per address to five an hour, then asks to wait", async () => {
    for (let i = 0; i < 5; i++) {
      const ok = await post({
        plan: "starter-monthly",
        business_name: `Shop ${i}`,
        contact_email: `s${i}@shop.test`,
      });
      expect(ok.statusCode).toBe(201);
    }
    const sixth = await post({
      plan: "starter-monthly",
      business_name: "Shop 6",
      contact_email: "s6@shop.test",
    });
    expect(sixth.statusCode).toBe(429);
    expect(Number(sixth.headers["retry-after"])).toBe(3600);
    const elsewhere = await post(
      { plan: "starter-monthly", business_name: "Other", contact_email: "o@other.test" },
      "198.51.100.9",
    );
    expect(elsewhere.statusCode).toBe(201);
    t.clock.advance(3_600_000);
    const later = await post({
      plan: "starter-monthly",
      business_name: "Shop 7",
      contact_email: "s7@shop.test",
    });
    expect(later.statusCode).toBe(201);
    expect(await workspaces()).toHaveLength(7);
  });

  it("welcomes the invitation link's visitor without another form", async () => {
    const ws = await t.createWorkspace({ plan_id: "2" });
    const page = await t.app.inject({
      method: "GET",
      url: `/register?workspace=${ws}&plan=starter-monthly`,
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Your workspace is ready");
    expect(page.body).not.toContain("<form");
  });

  it("allows no script on the page", async () => {
    const page = await t.app.inject({ method: "GET", url: "/register?plan=starter-monthly" });
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.body).not.toContain("<script");
  });
});

describe("serve --trust-proxy: sign-ups behind a reverse proxy", () => {
  const signUp = (app: TestApp, i: number, forwardedFor?: string, proxy = "127.0.0.1") =>
    app.app.inject({
      method: "POST",
      url: "/register",
      remoteAddress: proxy,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
      },
      payload: form({
        plan: "starter-monthly",
        business_name: `Shop ${i}`,
        contact_email: `s${i}@shop.test`,
      }),
    });

  it("counts each visitor by the address the named proxy forwards, so one visitor cannot use up everyone's sign-ups", async () => {
    const t = await startTestApp({ trustProxy: ["127.0.0.1"] });
    try {
      for (let i = 0; i < 5; i++) expect((await signUp(t, i, "203.0.113.7")).statusCode).toBe(201);
      expect((await signUp(t, 5, "203.0.113.7")).statusCode).toBe(429);
      // Another visitor through the same proxy still signs up.
      expect((await signUp(t, 6, "198.51.100.9")).statusCode).toBe(201);
      // The client is the last address the proxy appended, not one the visitor wrote before it.
      expect((await signUp(t, 7, "198.51.100.77, 203.0.113.7")).statusCode).toBe(429);
    } finally {
      await t.close();
    }
  });

  it("believes X-Forwarded-For only from the proxies named: anyone else is counted by their own address", async () => {
    const t = await startTestApp({ trustProxy: ["127.0.0.1"] });
    try {
      for (let i = 0; i < 5; i++) {
        const forged = await signUp(t, i, `198.51.100.${i + 1}`, "203.0.113.50");
        expect(forged.statusCode).toBe(201);
      }
      expect((await signUp(t, 5, "198.51.100.99", "203.0.113.50")).statusCode).toBe(429);
    } finally {
      await t.close();
    }
  });

  it("without the flag, counts every request by the address it comes from, whatever it says it forwards", async () => {
    const t = await startTestApp();
    try {
      for (let i = 0; i < 5; i++) {
        expect((await signUp(t, i, `198.51.100.${i + 1}`)).statusCode).toBe(201);
      }
      expect((await signUp(t, 5, "198.51.100.99")).statusCode).toBe(429);
    } finally {
      await t.close();
    }
  });
});

describe("serve --no-public-signup", () => {
  it("turns sign-up off: the link explains that sign-up is by invitation, and nothing is created", async () => {
    const database = await openDatabase(":memory:");
    const clock = new TestClock();
    await bootstrap(database.db, clock, { bootstrapToken: adminToken });
    const app = await buildApp({
      database,
      clock,
      publicUrl: () => publicUrl,
      rateLimit: defaultRateLimit,
      publicSignup: false,
    });
    try {
      const page = await app.inject({ method: "GET", url: "/register?plan=starter-monthly" });
      expect(page.statusCode).toBe(403);
      expect(page.body).toContain("Sign-up is by invitation");
      expect(page.body).toContain("Default reseller");
      const posted = await app.inject({
        method: "POST",
        url: "/register",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: form({ plan: "starter-monthly", business_name: "X", contact_email: "x@x.test" }),
      });
      expect(posted.statusCode).toBe(403);
      const list = await app.inject({
        method: "GET",
        url: "/api/v1/workspaces",
        headers: { authorization: `Bearer ${adminToken}` },
      });
      expect(WorkspaceListResponse.parse(list.json()).data).toEqual([]);
    } finally {
      await app.close();
      await database.close();
    }
  });
});

describe("prices and locales", () => {
  const plan = {
    id: 1,
    name: "Pro",
    slug: "pro",
    description: null,
    is_public: true,
    is_free: false,
    trial_days: null,
    price: 1234.5,
    billing_period: "yearly" as const,
    registration_url: null,
    features: [],
  };
  const euro = { code: "EUR", name: "Euro", symbol: "€" };

  it("picks the visitor's most wanted locale that is supported", () => {
    expect(visitorLocale("fr-CH;q=0.5, de-AT;q=0.9")).toBe("de-AT");
    expect(visitorLocale(undefined)).toBe("en");
    expect(visitorLocale("*, ;;;")).toBe("en");
  });

  it("formats the catalogue's currency for the locale, and a free plan as Free", () => {
    expect(formatPrice(plan, euro, "fr-FR")).toMatch(/^1\s234,50\s€ \/ year$/);
    expect(formatPrice(plan, euro, "en-US")).toBe("€1,234.50 / year");
    expect(formatPrice({ ...plan, is_free: true, price: 0 }, euro, "en-US")).toBe("Free");
    expect(formatPrice({ ...plan, is_free: false, price: null }, euro, "en-US")).toBe("On request");
    expect(formatPrice(plan, { code: "XXXX", name: "Tokens", symbol: "T" }, "en-US")).toBe(
      "T1,234.5 / year",
    );
    // A one-time price is not "per once": as the CLI and the period's vocabulary say it.
    expect(formatPrice({ ...plan, billing_period: "lifetime" }, euro, "en-US")).toBe(
      "€1,234.50 once",
    );
  });

  it("shows a price with the decimals the catalogue gives it, even where the currency has none", () => {
    const yen = { code: "JPY", name: "Yen", symbol: "¥" };
    expect(formatPrice({ ...plan, price: 9.5 }, yen, "en-US")).toBe("¥9.5 / year");
    expect(formatPrice({ ...plan, price: 980 }, yen, "en-US")).toBe("¥980 / year");
    expect(formatPrice({ ...plan, price: 4.125 }, euro, "en-US")).toBe("€4.125 / year");
  });
});
