import type { CommandSpec } from "../../command-spec.js";

/** `reseller serve exec -- <command…>`: one command against a fresh, throwaway service. */
export const serveExecCommand: CommandSpec = {
  name: "exec",
  summary: "Run a command against a fresh local service, then stop it (one line for CI)",
  description:
    "Starts a fresh service on a free port of 127.0.0.1 with a temporary database, runs the command with RESELLER_BASE_URL and RESELLER_TOKEN set to it (the token of the new database's reseller account), then stops the service, deletes the database and exits with the command's exit code (127 when it cannot be started, 128+n when signal n ended it). serve's other options (--plans, --public-url, --rate-limit, --review-delay, --throughput, --smtp-url, --log-level) apply; its --host, --port and --db do not. The service logs nothing unless --log-level is given, since its log would share stdout with the command. Put -- before the command so that its options stay its own.",
  arguments: [
    { name: "command", description: "the command to run, with its arguments", variadic: true },
  ],
  passThrough: true,
  examples: [
    "reseller serve exec -- npm test",
    "reseller serve exec -- sh -c 'reseller workspaces create --name Acme --email o@acme.test --json | jq -r .id'",
    "reseller serve --plans plans.json --review-delay 0 exec -- ./smoke-test.sh",
  ],
  handler: "serve/exec",
};
