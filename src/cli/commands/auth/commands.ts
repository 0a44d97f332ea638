import type { CommandSpec, GroupSpec } from "../../command-spec.js";

const login: CommandSpec = {
  name: "login",
  summary: "Check a token against the service and save it in a profile",
  description:
    "Checks the token against the service before saving it. At a terminal without flags it asks for the base URL and the token; in scripts pass --base-url and --token-stdin, or set RESELLER_BASE_URL and RESELLER_TOKEN (a token on the command line lands in shell history).",
  options: [{ flags: "--token-stdin", description: "read the token from standard input" }],
  examples: [
    "reseller login",
    "reseller login --base-url http://127.0.0.1:8420 --token-stdin < token.txt",
    'echo "$RESELLER_TOKEN" | reseller login --profile staging --base-url https://api.example.com --token-stdin',
  ],
  handler: "auth/login",
};

const logout: CommandSpec = {
  name: "logout",
  summary: "Forget the token stored in the profile",
  examples: ["reseller logout", "reseller logout --profile staging"],
  handler: "auth/logout",
};

export const authCommands: (CommandSpec | GroupSpec)[] = [
  login,
  logout,
  {
    name: "auth",
    summary: "Show which credentials are in force",
    commands: [
      {
        name: "status",
        summary:
          "Show the base URL, token and workspace in force, where each came from, whether the token works",
        description:
          "Exits 0 when the token works; 3 when there is none or the service refuses it; 2 when --profile or RESELLER_PROFILE names no stored profile; 8 when the service cannot be reached. With --json a failure prints the error object, whose details name the profile, base URL, masked token and workspace used, each with where it came from.",
        examples: ["reseller auth status", "reseller auth status --json"],
        handler: "auth/status",
      },
    ],
  },
  {
    name: "profiles",
    summary: "List and switch stored profiles",
    commands: [
      {
        name: "list",
        summary: "List stored profiles (tokens masked)",
        examples: ["reseller profiles list"],
        handler: "auth/profiles-list",
      },
      {
        name: "use",
        summary: "Make a profile the active one",
        arguments: [{ name: "name", description: "profile name" }],
        examples: ["reseller profiles use staging"],
        handler: "auth/profiles-use",
      },
    ],
  },
];
