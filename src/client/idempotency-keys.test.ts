import { afterEach, describe, expect, it, vi } from "vitest";
import { idempotencyKeySequence } from "./idempotency-keys.js";

describe("the Idempotency-Keys of one invocation", () => {
  afterEach(() => vi.restoreAllMocks());

  it("draws no random key until the first POST, so a command that only reads never loads Web Crypto", () => {
    const draw = vi.spyOn(globalThis.crypto, "randomUUID");
    const keys = idempotencyKeySequence();
    expect(draw).not.toHaveBeenCalled();
    const first = keys();
    expect(draw).toHaveBeenCalledTimes(1);
    expect(keys()).toBe(`${first}-2`);
    expect(keys()).toBe(`${first}-3`);
    expect(draw).toHaveBeenCalledTimes(1);
  });

  it("sends a given key itself on the first POST and numbers the later ones", () => {
    const draw = vi.spyOn(globalThis.crypto, "randomUUID");
    const keys = idempotencyKeySequence("order-42");
    expect([keys(), keys()]).toEqual(["order-42", "order-42-2"]);
    expect(draw).not.toHaveBeenCalled();
  });
});
