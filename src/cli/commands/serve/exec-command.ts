import type { CommandSpec } from "../../command-spec.js";

/** `reseller serve exec -- <command…>`: one command against a fresh, throwaway service. */
export const serveExecCommand: CommandSpec = {
  name: "exec",
  summary: "Run a command against a fresh local service, then stop it (one line for CI)",
  description:
    "Starts a fresh service on a free port of 127.0.0.1 with a temporary database, runs the command with RESELLER_BASE_URL and RESELLER_TOKEN set to it (the token of the new database's reseller account), then stops the service, deletes the database and exits with the command's exit code (127 when it cannot be started, 128+n when signal n ended it). `reseller` is on the command's PATH (this CLI, installed or not), with a profile store of its own (RESELLER_CONFIG_DIR), so the user's profiles are neither read nor changed. serve's options apply: --host and --port choose where it listens (default: 127.0.0.1 and a free port), --db FILE or --database URL uses that database and keeps it (with RESELLER_TOKEN when it already has an account; DATABASE_URL is not used), and --plans, --public-url, --rate-limit, --review-delay, --throughput and --smtp-url as for serve (RESELLER_SMTP_URL is not used either). The service logs nothing unless --log-level is given (JSON lines, since its log shares stdout with the command). Put -- before the command so that its options stay its own.",
  arguments: [
    { name: "command", description: "the command to run, with its arguments", variadic: true },
  ],
  passThrough: true,
  examples: [
    "reseller serve exec -- npm test",
    "reseller serve exec -- sh -c 'reseller workspaces create --name Acme --email o@acme.test --json | jq -r .id'",
    "reseller serve --plans examples/plans.json --review-delay 0 exec -- ./smoke-test.sh",
    "reseller serve --port 8421 exec -- sh -c 'reseller plans list'",
  ],
  handler: "serve/exec",
};
