import { describe, expect, it } from "vitest";
import { serveSettings } from "./serve-settings.js";

describe("serve's settings", () => {
  it("takes the SMTP server from RESELLER_SMTP_URL, so its password stays out of the process list", () => {
    const env = { RESELLER_SMTP_URL: "smtp://mailer:secret@127.0.0.1:2525" };
    expect(serveSettings({}, env).smtpUrl).toBe("smtp://mailer:secret@127.0.0.1:2525");
    // The flag wins, as flags win over the environment everywhere.
    expect(serveSettings({ smtpUrl: "smtp://127.0.0.1:25" }, env).smtpUrl).toBe(
      "smtp://127.0.0.1:25",
    );
    expect(serveSettings({}, {}).smtpUrl).toBeUndefined();
  });

  it("refuses a public URL that sign-up links could not be built on, naming the flag", () => {
    for (const publicUrl of [
      "notaurl",
      "ftp://example.com",
      "https://example.com/shop?x=1",
      "https://example.com/#top",
      "https://user:pw@example.com",
      "https://example.com/?",
      "https://example.com#",
    ]) {
      expect(() => serveSettings({ publicUrl }), publicUrl).toThrow(/--public-url must be/);
    }
    expect(serveSettings({ publicUrl: "https://example.com/shop/" }).publicUrl).toBe(
      "https://example.com/shop/",
    );
  });

  it("refuses a rate-limit window of no time, which would turn the limit off", () => {
    expect(() => serveSettings({ rateLimit: "2/0s" })).toThrow(/window of at least 1/);
    expect(serveSettings({ rateLimit: "2/s" }).rateLimit).toEqual({ max: 2, windowMs: 1000 });
  });
});
