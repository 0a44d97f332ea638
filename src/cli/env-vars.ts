/** Every environment variable the tool reads, declared once with what it does (the README lists these). */
export const envVars = {
  RESELLER_BASE_URL: "Base URL of the service (overrides the profile; overridden by --base-url).",
  RESELLER_TOKEN: "API token (overrides the profile; overridden by --token).",
  RESELLER_PROFILE: "Name of the stored profile to use (overridden by --profile).",
  RESELLER_WORKSPACE:
    "Workspace id for commands inside a workspace (overridden by -w/--workspace).",
  RESELLER_CONFIG_DIR: "Folder of the profile store (default: the user's config folder).",
  DATABASE_URL:
    "serve and admin commands: a postgres:// URL to run on PostgreSQL (overridden by --database or --db).",
  RESELLER_BOOTSTRAP_TOKEN:
    "serve: the token of the first reseller account created on an empty database.",
  RESELLER_SECRET_KEY:
    "serve: 32 bytes in base64 (openssl rand -base64 32) sealing WhatsApp Cloud API access tokens and webhook signing secrets (AES-256-GCM); without it cloud channels are refused.",
  RESELLER_SMTP_URL:
    "serve: the SMTP server for invitation emails, smtp[s]://user:pass@host:port (overridden by --smtp-url; keeps the password out of the process list).",
  RESELLER_WHATSAPP_APP_SECRET:
    "serve: the Meta app secret that signs WhatsApp webhooks (X-Hub-Signature-256).",
  RESELLER_WHATSAPP_VERIFY_TOKEN:
    "serve: the verify token you type into Meta's webhook settings; /webhooks/whatsapp answers the handshake with it.",
  NO_COLOR: "Any non-empty value turns colour off.",
  FORCE_COLOR:
    "Turns colour on even when output is not a terminal ('0' turns it off); in piped tab-separated rows only status words are painted, so the values are the same once the codes are stripped.",
  CI: "When set, the CLI never prompts (a missing value is a usage error naming its flag) and prints no colour unless FORCE_COLOR asks.",
  HTTP_PROXY: "Proxy for http:// service URLs (also HTTPS_PROXY, NO_PROXY).",
} as const;

/** The process environment as the CLI sees it (tests pass their own). */
export type Env = Readonly<Record<string, string | undefined>>;
