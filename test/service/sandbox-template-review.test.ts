import { describe, expect, it } from "vitest";
import type { TemplateDefinition } from "../../src/contract/template-rules.js";
import { sandboxMessagingProvider } from "../../src/service/sandbox/sandbox-provider.js";
import { sandboxReview } from "../../src/service/sandbox/template-review.js";

function utility(
  text: string,
  category: TemplateDefinition["category"] = "utility",
): TemplateDefinition {
  return { name: "t", category, language: "en", components: [{ type: "BODY", text }] };
}

describe("the sandbox operator's content rules", () => {
  it.each([
    ["Your order has shipped.", "utility"],
    ["Wholesale orders ship on Mondays.", "utility"],
    ["Details at https://www.microsoft.com/support today.", "utility"],
    ["Your password was changed. If this was not you, call us.", "utility"],
    ["Enjoy 20% off everything this weekend!", "marketing"],
    // Signing in is entering a code, not handing it over; advice and warnings are no asks.
    ["Enter the security code sent to you to sign in.", "utility"],
    ["To reset, type the security code we sent.", "utility"],
    ["You can update your password in settings.", "utility"],
    ["Never share your password or PIN with anyone.", "utility"],
    ["Submit your meter reading; your PIN is not needed.", "utility"],
    ["Please provide feedback about the new PIN pad.", "utility"],
    ["Our sales team will call you about the sales tax on your invoice.", "utility"],
  ] as const)("approves %j (%s)", (text, category) => {
    expect(sandboxReview(utility(text, category))).toEqual({ status: "approved" });
  });

  it.each([
    ["Get it at bit.ly/x now.", "INVALID_FORMAT", "bit.ly"],
    ["See https://t.co/abc for more.", "INVALID_FORMAT", "t.co"],
    ["Open HTTPS://TinyURL.com/y for details.", "INVALID_FORMAT", "TinyURL.com"],
    ["Please reply with your PIN to continue.", "SCAM", "PIN"],
    ["Send us your card number and CVV.", "SCAM", "card number"],
    ["Your order shipped. Enjoy 20% off next time.", "INCORRECT_CATEGORY", "% off"],
    ["Your order shipped. Use coupon THANKS.", "INCORRECT_CATEGORY", "coupon"],
    ["Black Friday starts now for members.", "INCORRECT_CATEGORY", "Black Friday"],
    ["Text us your CVV to keep your order today.", "SCAM", "CVV"],
    ["Please provide your card number to keep your order.", "SCAM", "card number"],
    ["Kindly type your PIN here.", "SCAM", "PIN"],
    ["Please confirm your bank details today.", "SCAM", "bank details"],
    ["Enter your password to log in.", "SCAM", "password"],
    ["Your account qualifies for discounts.", "INCORRECT_CATEGORY", "discounts"],
    ["Summer sale starts now.", "INCORRECT_CATEGORY", "sale"],
    ["Your coupons are ready.", "INCORRECT_CATEGORY", "coupons"],
    ["Your order shipped, now 20%off.", "INCORRECT_CATEGORY", "%off"],
  ] as const)("rejects %j as %s", (text, reason, word) => {
    const outcome = sandboxReview(utility(text));
    expect(outcome).toMatchObject({ status: "rejected", reason });
    expect(outcome.status === "rejected" && outcome.detail).toContain(word);
  });

  it("rejects a URL shortener in a button of a marketing template too", () => {
    const outcome = sandboxReview({
      name: "t",
      category: "marketing",
      language: "en",
      components: [
        { type: "BODY", text: "Our sale starts today." },
        { type: "BUTTONS", buttons: [{ type: "URL", text: "Shop", url: "https://goo.gl/abc" }] },
      ],
    });
    expect(outcome).toMatchObject({ status: "rejected", reason: "INVALID_FORMAT" });
  });

  it("rejects a COPY_CODE offer button in a utility template as INCORRECT_CATEGORY", () => {
    const outcome = sandboxReview({
      name: "t",
      category: "utility",
      language: "en",
      components: [
        { type: "BODY", text: "Thanks for your order." },
        { type: "BUTTONS", buttons: [{ type: "COPY_CODE", example: "THANKS10" }] },
      ],
    });
    expect(outcome).toMatchObject({
      status: "rejected",
      reason: "INCORRECT_CATEGORY",
      detail: expect.stringContaining("components.1.buttons.0"),
    });
  });

  it("approves an authentication template, whose text WhatsApp supplies", () => {
    expect(
      sandboxReview({
        name: "login",
        category: "authentication",
        language: "en",
        components: [
          { type: "BODY", add_security_recommendation: true },
          { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE" }] },
        ],
      }),
    ).toEqual({ status: "approved" });
  });

  it("is a messaging provider of kind sandbox with the configured review delay", async () => {
    const provider = sandboxMessagingProvider({
      reviewDelayMs: 1234,
      sender: { send: async () => [] },
    });
    expect(provider.kind).toBe("sandbox");
    expect(provider.reviewDelayMs).toBe(1234);
    expect(
      await provider.reviewTemplate(
        {
          ...utility("Hello there."),
          id: "tpl_1",
          workspace_id: "ws_1",
        },
        null,
      ),
    ).toEqual({ status: "approved" });
  });
});
