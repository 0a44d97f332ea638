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
});
