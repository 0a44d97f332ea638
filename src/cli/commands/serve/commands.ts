import { defaultPort } from "../../../contract/local-service.js";
import {
  defaultRateLimit,
  defaultReviewDelayMs,
  defaultThroughput,
  defaultWebhookRetryBaseMs,
} from "../../../service/config.js";
import type { CommandSpec } from "../../command-spec.js";
import { serveExecCommand } from "./exec-command.js";
import { rateLimitText } from "./rate-limit.js";

export const serveCommand: CommandSpec = {
  name: "serve",
  summary:
    "Run the whole service: on an embedded SQLite file, or on PostgreSQL as one of several instances",
  description:
    "Runs the plan catalogue, the reseller API and a sandbox messaging operator on one port. On an empty database it creates the first reseller account, whose token is RESELLER_BOOTSTRAP_TOKEN when set, otherwise random and printed once. Log lines go to stdout (readable at a terminal, JSON lines when piped or with --log-format json), notes to stderr. Stops cleanly on Ctrl-C or SIGTERM. Real WhatsApp numbers (channels add --provider whatsapp_cloud) need RESELLER_SECRET_KEY (32 bytes, base64), and Meta's webhooks RESELLER_WHATSAPP_APP_SECRET and RESELLER_WHATSAPP_VERIFY_TOKEN; see docs/whatsapp-cloud.md.",
  options: [
    // No commander defaults for these three: `serve exec` uses a fresh service unless given them.
    {
      flags: "--host <host>",
      description: "address to listen on (default: 127.0.0.1)",
    },
    {
      flags: "--port <port>",
      description: `port to listen on (default: ${defaultPort}, serve exec: a free one; 0 picks a free one)`,
    },
    {
      flags: "--db <file>",
      description:
        "SQLite database file, created when missing in a folder that exists (default: reseller.db; serve exec: a temporary one); one that cannot be opened is a usage error (exit 2)",
    },
    {
      flags: "--database <url>",
      description:
        "run on PostgreSQL 15+ instead (postgres://user:pass@host/db; default: DATABASE_URL); several instances may share it",
    },
    {
      flags: "--plans <file>",
      description: "load the plan catalogue from this JSON file (upserted by slug)",
    },
    {
      flags: "--public-url <url>",
      description:
        "base of sign-up links and the dashboard sign-in link printed at start (default: the address it listens on; the machine's name when listening on every address)",
    },
    {
      flags: "--sign-in-link",
      description:
        "print the dashboard's one-time sign-in link even when stderr is no terminal (whoever reads it can sign in as the first reseller for 10 minutes)",
    },
    {
      flags: "--rate-limit <n/window>",
      description: "requests per token per window, e.g. 600/1m, 100/s",
      default: rateLimitText(defaultRateLimit),
    },
    {
      flags: "--review-delay <seconds>",
      description:
        "seconds before the sandbox operator reviews a submitted template (0: at once; fractions allowed)",
      default: String(defaultReviewDelayMs / 1000),
    },
    {
      flags: "--graph-url <url>",
      description:
        "WhatsApp Cloud API: the Graph API base URL with its version (default https://graph.facebook.com/v21.0); tests and staging point it elsewhere",
    },
    {
      flags: "--throughput <n>",
      description: "messages per second per channel (WhatsApp's default; 0: no limit)",
      default: String(defaultThroughput),
    },
    {
      flags: "--webhook-retry-base <seconds>",
      description:
        "first webhook retry delay (fractions allowed: 0.5); each further one doubles, for up to 3 days",
      default: String(defaultWebhookRetryBaseMs / 1000),
    },
    {
      flags: "--block-private-webhooks",
      description:
        "refuse webhook URLs that resolve to loopback, private or link-local addresses (public deployments)",
    },
    {
      flags: "--smtp-url <url>",
      description:
        "also send invitation emails through this SMTP server (smtp[s]://user:pass@host:port; default: RESELLER_SMTP_URL, which keeps the password out of the process list); an smtp:// server on another machine that the URL logs in to must offer STARTTLS (?requireTLS=false to allow one without)",
    },
    {
      flags: "--trust-proxy <addresses>",
      description:
        "your reverse proxies (comma-separated IPs, CIDR ranges or loopback): a request from one is counted under the client X-Forwarded-For names, for the per-address limits (sign-ups, requests without a valid token)",
    },
    {
      flags: "--no-public-signup",
      description:
        "turn off the sign-up page (/register): plan links then explain that sign-up is by invitation",
    },
    {
      flags: "--log-level <level>",
      description: "log level (default: info; serve exec: silent)",
      choices: ["fatal", "error", "warn", "info", "debug", "silent"],
    },
    {
      flags: "--log-format <format>",
      description:
        "log lines as JSON (pino) or readable (default: readable at a terminal, JSON when piped)",
      choices: ["json", "pretty"],
    },
  ],
  examples: [
    "reseller serve",
    "RESELLER_BOOTSTRAP_TOKEN=rsk_dev_token_for_this_laptop reseller serve --port 8420 --db dev.db",
    "reseller serve --plans plans.json --public-url https://example.com --rate-limit 100/s",
  ],
  handler: "serve/serve",
  subcommands: [serveExecCommand],
};
