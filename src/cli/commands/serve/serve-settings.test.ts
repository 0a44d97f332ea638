import { describe, expect, it } from "vitest";
import { defaultRateLimit } from "../../../service/config.js";
import { parseRateLimit, rateLimitText } from "./rate-limit.js";
import { bootstrapTokenOption, hostOption, serveSettings } from "./serve-settings.js";

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

  it("falls back to the service's defaults, which --help shows as they are parsed", () => {
    expect(serveSettings({})).toMatchObject({
      rateLimit: { max: 6000, windowMs: 60_000 },
      reviewDelayMs: 5000,
      throughput: 80,
      webhookRetryBaseMs: 60_000,
    });
    expect(rateLimitText(defaultRateLimit)).toBe("6000/1m");
    expect(parseRateLimit(rateLimitText({ max: 5, windowMs: 7_200_000 }))).toEqual({
      max: 5,
      windowMs: 7_200_000,
    });
  });

  it("takes fractions of a second for the waits tests shorten, and refuses a retry delay of no time", () => {
    expect(serveSettings({ webhookRetryBase: "0.5", reviewDelay: "0.25" })).toMatchObject({
      webhookRetryBaseMs: 500,
      reviewDelayMs: 250,
    });
    expect(serveSettings({ reviewDelay: "0" }).reviewDelayMs).toBe(0);
    for (const webhookRetryBase of ["0", "-1", "1e3", "soon"]) {
      expect(() => serveSettings({ webhookRetryBase }), webhookRetryBase).toThrow(
        /--webhook-retry-base expects a number of seconds from 0.001 to 86400/,
      );
    }
  });

  it("listens on this machine only unless told, and refuses an empty --host that would mean every interface", () => {
    expect(hostOption({})).toBe("127.0.0.1");
    expect(hostOption({ host: "0.0.0.0" })).toBe("0.0.0.0");
    expect(() => hostOption({ host: "  " })).toThrow(/--host is empty/);
  });

  it("refuses a rate-limit window of no time, which would turn the limit off", () => {
    expect(() => serveSettings({ rateLimit: "2/0s" })).toThrow(/window of at least 1/);
    expect(serveSettings({ rateLimit: "2/s" }).rateLimit).toEqual({ max: 2, windowMs: 1000 });
  });

  it("refuses an SMTP URL it could not send through, naming where it came from, before anything starts", () => {
    expect(() => serveSettings({ smtpUrl: "nope" })).toThrow(/--smtp-url expects smtp:\/\//);
    // The mailer decodes the password: a stray % fails it.
    expect(() => serveSettings({ smtpUrl: "smtp://u:p%zz@mail.example.test:25" })).toThrow(
      /--smtp-url expects/,
    );
    expect(() => serveSettings({}, { RESELLER_SMTP_URL: "http://mail:pw@x" })).toThrow(
      /RESELLER_SMTP_URL expects .*got 'http:\/\/mail:\*\*\*@x/,
    );
  });

  it("takes the first account's token trimmed, and refuses one no request could send", () => {
    expect(bootstrapTokenOption({ RESELLER_BOOTSTRAP_TOKEN: "rsk_from_env_file\r\n" })).toBe(
      "rsk_from_env_file",
    );
    expect(bootstrapTokenOption({})).toBeUndefined();
    expect(() => bootstrapTokenOption({ RESELLER_BOOTSTRAP_TOKEN: "rsk_with space" })).toThrow(
      /RESELLER_BOOTSTRAP_TOKEN holds a space/,
    );
  });
});

describe("serve --trust-proxy", () => {
  it("takes the proxies' addresses, CIDR ranges and range names, comma-separated", () => {
    expect(
      serveSettings({ trustProxy: "127.0.0.1, 10.0.0.0/8,fd00::/8,::1,loopback" }).trustProxy,
    ).toEqual(["127.0.0.1", "10.0.0.0/8", "fd00::/8", "::1", "loopback"]);
    expect(serveSettings({}).trustProxy).toBeUndefined();
  });

  it("refuses anything that is not an address or a range, naming the flag and the entry", () => {
    for (const [given, wrong] of [
      ["true", "true"],
      ["127.0.0.1,proxy.internal", "proxy.internal"],
      ["10.0.0.0/33", "10.0.0.0/33"],
      ["fd00::/129", "fd00::/129"],
      ["10.0.0.0/8/8", "10.0.0.0/8/8"],
      ["127.0.0.1,", ""],
    ] as const) {
      expect(() => serveSettings({ trustProxy: given }), given).toThrow(
        `--trust-proxy expects your proxies' addresses, comma-separated: IPs, CIDR ranges (10.0.0.0/8) or loopback, linklocal, uniquelocal; got '${wrong}'.`,
      );
    }
  });
});
