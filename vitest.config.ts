import { defineConfig } from "vitest/config";

/**
 * Two projects: every test on the embedded SQLite engine, and the API suite, the WhatsApp suite,
 * the multi-instance tests and the PostgreSQL-only tests again on a throwaway PostgreSQL cluster
 * that test/setup/postgres.ts starts (behaviour must be identical on both engines).
 */
export default defineConfig({
  test: {
    // Two cores: run files in parallel, but only two at a time.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll's own default (1 s) is tight for a render or a round trip on a loaded 2-core
    // machine; a poll that succeeds returns at once, so a long bound costs nothing.
    expect: { poll: { timeout: 10_000 } },
    setupFiles: ["test/setup/temp-dir.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "sqlite",
          include: ["test/**/*.test.ts", "src/**/*.test.ts"],
          exclude: ["test/postgres/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: [
            "test/api/**/*.test.ts",
            "test/multi-instance/**/*.test.ts",
            "test/postgres/**/*.test.ts",
            // The Cloud API's sends, webhooks and crash rules, concurrent sends included.
            "test/whatsapp/**/*.test.ts",
          ],
          env: { RESELLER_TEST_ENGINE: "postgres" },
          globalSetup: ["test/setup/postgres.ts"],
        },
      },
    ],
  },
});
