import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import Conf from "conf";
import { describe, expect, it } from "vitest";
import { ProfileStore, profileDirectory } from "../../src/cli/profile-store.js";
import { planMeta, starterPlan } from "../fixtures/plans.js";
import { runCli } from "../helpers/cli.js";
import { jsonHeaders, mockApi } from "../helpers/mock-api.js";

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

  it("takes an empty or relative XDG_CONFIG_HOME as unset, never the folder it runs in", () => {
    const home = join(homedir(), ".config", "reseller");
    for (const XDG_CONFIG_HOME of ["", "relative/config"]) {
      expect(profileDirectory(undefined, { XDG_CONFIG_HOME }), XDG_CONFIG_HOME).toBe(home);
    }
    expect(profileDirectory(undefined, { XDG_CONFIG_HOME: "/etc/xdg-test" })).toBe(
      "/etc/xdg-test/reseller",
    );
  });

  it("starts from no profiles when the file is missing", () => {
    const dir = mkdtempSync(join(tmpdir(), "reseller-store-"));
    expect(new ProfileStore(dir).list()).toEqual([]);
    expect(new ProfileStore(dir).activeName).toBe("default");
  });

  it("names a hand-edited file that is not what it writes, with what is wrong, as a usage error", async () => {
    const cases: [string, string][] = [
      ["{not json", "is not valid JSON"],
      ["[]", "does not hold a JSON object"],
      [
        '{"profiles":{"default":{"token":123}}}',
        "has a token in profile 'default' that is not a string",
      ],
      ['{"profiles":{"default":"x"}}', "has a profile 'default' that is not an object"],
    ];
    for (const [content, why] of cases) {
      const dir = mkdtempSync(join(tmpdir(), "reseller-store-"));
      writeFileSync(join(dir, "config.json"), content);
      const run = await runCli(["contacts", "list", "-w", "ws_1"], {
        env: { RESELLER_CONFIG_DIR: dir },
      });
      expect(run.code, content).toBe(2);
      expect(run.stderr).toContain(`The config file ${join(dir, "config.json")} ${why}`);
      expect(run.stderr).not.toContain("Unexpected error");
    }
  });

  it("lets a command given its token and base URL by the environment run past a broken file, saying so", async () => {
    const api = mockApi();
    api.pool
      .intercept({ path: "/api/v1/plans/2", method: "GET" })
      .reply(
        200,
        { status: "success", data: starterPlan, meta: planMeta },
        { headers: jsonHeaders },
      );
    const dir = mkdtempSync(join(tmpdir(), "reseller-store-"));
    writeFileSync(join(dir, "config.json"), "{not json");
    const run = await runCli(["plans", "get", "2", "--json"], {
      env: { ...api.env, RESELLER_CONFIG_DIR: dir },
      dispatcher: api.agent,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(starterPlan);
    expect(run.stderr).toContain("is not valid JSON");
    expect(run.stderr).toContain("Not read: the token and base URL were given.");
    api.done();
    // A profile asked for by name is not done without: the broken file stops the command.
    const named = await runCli(["plans", "get", "2", "--json"], {
      env: { ...api.env, RESELLER_CONFIG_DIR: dir, RESELLER_PROFILE: "prod" },
      dispatcher: api.agent,
    });
    expect(named.code).toBe(2);
    expect(JSON.parse(named.stdout).error.error_code).toBe("config_unreadable");
  });
});
