import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Conf from "conf";
import { describe, expect, it } from "vitest";
import { ProfileStore, profileDirectory } from "../../src/cli/profile-store.js";

describe("the profile store", () => {
  it("creates its folder readable by its owner only (0700) and the file 0600", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "reseller-store-")), "nested", "reseller");
    const store = new ProfileStore(dir);
    await store.update("default", { base_url: "http://127.0.0.1:8420", token: "rsk_x" });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it("reads what conf wrote, from the file conf writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reseller-store-"));
    const writer = new ProfileStore(dir);
    await writer.update("staging", { base_url: "https://staging.example", token: "rsk_s" });
    await writer.use("staging");
    const reader = new ProfileStore(dir);
    expect(reader.activeName).toBe("staging");
    expect(reader.get("staging")).toEqual({ base_url: "https://staging.example", token: "rsk_s" });
    const conf = new Conf({
      projectName: "reseller",
      projectSuffix: "",
      configName: "config",
      cwd: dir,
    });
    expect(reader.path).toBe(conf.path);
  });

  it("finds the same default folder as conf (the user's config folder)", () => {
    const conf = new Conf({ projectName: "reseller", projectSuffix: "", configName: "config" });
    expect(join(profileDirectory(), "config.json")).toBe(conf.path);
  });

  it("starts from no profiles when the file is missing or unreadable", () => {
    const dir = mkdtempSync(join(tmpdir(), "reseller-store-"));
    expect(new ProfileStore(dir).list()).toEqual([]);
    writeFileSync(join(dir, "config.json"), "{not json");
    expect(new ProfileStore(dir).activeName).toBe("default");
  });
});
