import { statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { ApiError } from "../../../client/api-error.js";
import { mappingFlags, mappingFlagsText } from "../../../contract/contact-csv.js";
import type { CsvReadOptions } from "../../../contract/csv-options.js";
import { delimiterName } from "../../../contract/csv-options.js";
import type { Plan, PlanMeta } from "../../../contract/plans.js";
import { Workspace } from "../../../contract/workspaces.js";
import { CliError, exitCodes, usageError } from "../../cli-error.js";
import type { CommandResult, Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { cannotRead } from "../../input-file.js";
import { interruptibleWait } from "../../interruptible-wait.js";
import { booleanOption, listOption, requireFlags, stringOption } from "../../options.js";
import { when } from "../../output/time.js";
import { recordView, type StackPart, stackView, type View } from "../../output/view.js";
import { flagOrAsk } from "../../prompts.js";
import { exitKindOf } from "../../report-error.js";
import { dryRun } from "../contacts/dry-run.js";
import { run as importContacts } from "../contacts/import.js";
import { answeredLine, resolveCsvOptions } from "../contacts/import-mapping.js";
import { periodLabel, priceLabel } from "../plans/plan-format.js";
import { planCatalogue, planIdIn } from "../plans/plan-lookup.js";
import { createToken, secretShown } from "../tokens/token-actions.js";
import { commandTree } from "../tree.js";
import { run as createWorkspace } from "./create.js";
import { workspaceFields } from "./workspace-format.js";
import { checkEmailFlag, checkNameFlag, emailProblem, nameProblem } from "./workspace-input.js";

type Options = Readonly<Record<string, unknown>>;

/** The name and scope of the token for a client's pricing page. */
export const pricingToken = { name: "pricing page", scope: "plans:read" } as const;

/** A plan as the picker and the summary show it: `Starter · $29 / month`. */
function planText(plan: Plan, meta: PlanMeta): string {
  return `${plan.name} · ${priceLabel(plan, meta)}`;
}

/** A yes/no step: its flag when given, else asked at a terminal, else the default. */
async function choice(
  ctx: Context,
  given: boolean | undefined,
  fallback: boolean,
  message: string,
): Promise<boolean> {
  if (given !== undefined) return given;
  if (!ctx.canPrompt) return fallback;
  return ctx.prompter.confirm({ message, default: fallback });
}

/** The plan by id or slug: from --plan, else picked from the catalogue at a terminal. */
async function pickPlan(
  ctx: Context,
  options: Options,
  plans: Plan[],
  meta: PlanMeta,
): Promise<string> {
  const given = stringOption(options, "plan")?.trim();
  if (given) return planIdIn(plans, given, "invalid_flag");
  if (plans.length === 0) {
    throw usageError("The service's catalogue has no plans to choose from.");
  }
  // Without a terminal a missing --plan was refused before anything was asked (run below).
  return ctx.prompter.select({
    message: "Plan",
    choices: plans.map((plan) => ({
      name: planText(plan, meta),
      value: String(plan.id),
      description: [
        periodLabel(plan.billing_period, meta),
        plan.is_public ? "" : "private",
        plan.description ?? "",
      ]
        .filter(Boolean)
        .join(" · "),
    })),
  });
}

const isFile = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** The CSV file to import when none was given by flag: asked at a terminal (optional), else none. */
async function importFile(ctx: Context): Promise<string | undefined> {
  if (!ctx.canPrompt) return undefined;
  const wanted = await ctx.prompter.confirm({
    message: "Import contacts from a CSV file now?",
    default: false,
  });
  if (!wanted) return undefined;
  return (
    await ctx.prompter.input({
      message: "CSV file to import",
      validate: (v) => (isFile(v.trim()) ? true : `No file at '${v.trim()}'.`),
    })
  ).trim();
}

/**
 * The country of the file's numbers written without +country: --default-country, else asked once
 * a file was chosen at a terminal (Enter: none).
 */
async function importCountry(ctx: Context, options: Options): Promise<string | undefined> {
  const given = stringOption(options, "defaultCountry");
  if (given !== undefined) return given;
  const answer = (
    await ctx.prompter.input({
      message: "Country of numbers written without +country, e.g. DE (Enter: none)",
      validate: (v) => (/^([A-Za-z]{2})?$/.test(v.trim()) ? true : "Two letters, e.g. DE."),
    })
  ).trim();
  return answer === "" ? undefined : answer.toUpperCase();
}

/** A file to import, checked, with the way its columns are read. */
interface ContactsFile {
  path: string;
  country: string | undefined;
  read: CsvReadOptions;
}

/**
 * The file checked as `contacts import --dry-run` checks it, its columns mapped at a terminal,
 * all before the workspace exists: otherwise a file the service refuses, or Ctrl-C at the
 * mapping, would leave a workspace created (and its invitation sent) without its contacts.
 */
async function checkedImport(
  ctx: Context,
  path: string,
  country: string | undefined,
  options: Options,
): Promise<ContactsFile> {
  try {
    const read = await resolveCsvOptions(ctx, path, options);
    const bytes = await readFile(path).catch((error: unknown) => {
      throw cannotRead(`'${path}'`, error);
    });
    dryRun(bytes, country, ctx.now(), read);
    return { path, country, read };
  } catch (error) {
    // A file the service would refuse (the dry run's exit 2 with the service's error code): said
    // with what onboarding did not do, and how to go on.
    if (
      error instanceof CliError &&
      error.errorCode !== "usage" &&
      error.exitCode === exitCodes.usage.code
    ) {
      throw new CliError(
        "usage",
        error.message,
        `Nothing was created. Fix ${path}, or onboard without it and import it afterwards with \`reseller contacts import\` (--map and --preset say which column holds what).`,
        error.details,
        error.errorCode,
      );
    }
    throw error;
  }
}

/** A view whose parts print no ids, so --quiet prints the workspace's id alone. */
function withoutIds(view: View): View {
  return view.kind === "stack"
    ? { ...view, parts: view.parts.map((p) => ({ ...p, view: withoutIds(p.view) })) }
    : { ...view, ids: [] };
}

/** Commands of the tree, to suggest only next steps that exist. */
function hasCommand(path: string[]): boolean {
  let level: typeof commandTree = commandTree;
  for (const name of path) {
    const found = level.find((c) => c.name === name);
    if (!found) return false;
    level = "commands" in found ? found.commands : [];
  }
  return true;
}

/**
 * The commands that come next, each with what it is for. At a terminal the creating ones ask
 * for what they need; without one (a script, CI) they are shown with the flags they need.
 */
function nextSteps(ws: Workspace, imported: boolean, asking: boolean): string[] {
  const id = ws.id;
  const steps: [string[], string, string][] = [
    [["workspaces", "use"], `reseller workspaces use ${id}`, "work inside it by default"],
    [
      ["contacts", "import"],
      `reseller contacts import contacts.csv -w ${id}`,
      "import their CSV (--default-country reads national numbers)",
    ],
    asking
      ? [
          ["channels", "add"],
          `reseller channels add -w ${id}`,
          "connect the number campaigns send from (it asks for it)",
        ]
      : [
          ["channels", "add"],
          `reseller channels add -w ${id} --phone +E164`,
          "connect the number campaigns send from",
        ],
    asking
      ? [
          ["templates", "create"],
          `reseller templates create -w ${id}`,
          "submit a message template (it asks for its name, category, language, body and examples)",
        ]
      : [
          ["templates", "create"],
          `reseller templates create -w ${id} --name NAME --category CATEGORY --language LANG --body TEXT`,
          "submit a message template",
        ],
    [
      ["campaigns", "create"],
      asking
        ? `reseller campaigns create -w ${id}`
        : `reseller campaigns create -w ${id} --name NAME --channel CHANNEL_ID --template NAME --language LANG --all`,
      "send a broadcast once a template is approved",
    ],
    [["workspaces", "get"], `reseller workspaces get ${id}`, "usage against the plan's limits"],
  ];
  const shown = steps.filter(([path]) => hasCommand(path) && !(imported && path[0] === "contacts"));
  const width = Math.max(...shown.map(([, command]) => command.length));
  return shown.map(([, command, why]) => `  ${command.padEnd(width)}   # ${why}`);
}

/**
 * `reseller workspaces onboard`: a new client from start to finish. Every question has a flag;
 * the workspace is created first, then the follow-ups, each reported even if a later one fails.
 */
export const run: Handler = async (command, { options }) => {
  const yes = booleanOption(options, "yes");
  // --yes promises no question: it answers as a run without a terminal does.
  const ctx: Context = { ...command, canPrompt: command.canPrompt && !yes };
  if (ctx.canPrompt) ctx.info("Onboarding a new client: a workspace, its plan and more.");
  const hint =
    "With --yes or without a terminal pass --name, --email and --plan (see `reseller plans list`).";
  if (!ctx.canPrompt) requireFlags(options, ["name", "email", "plan"], hint);
  const missing = (flag: string) => ({ flag, hint });
  const name = await flagOrAsk(
    ctx,
    stringOption(options, "name"),
    { message: "Client business name", validate: (v) => nameProblem(v) ?? true },
    missing("--name"),
  );
  checkNameFlag(name);
  const email = await flagOrAsk(
    ctx,
    stringOption(options, "email"),
    {
      message: "Contact email (receives the invitation)",
      validate: (v) => emailProblem(v) ?? true,
    },
    missing("--email"),
  );
  checkEmailFlag(email);
  if (!stringOption(options, "plan")?.trim() && !ctx.canPrompt) {
    throw usageError("Missing --plan.", "Pick a plan id or slug from `reseller plans list`.");
  }
  const importFlag = stringOption(options, "import");
  if (importFlag !== undefined) {
    // Checked before anything is created: a wrong path must not leave a workspace behind.
    await stat(importFlag).then(
      (found) => {
        if (!found.isFile()) throw cannotRead(`--import file '${importFlag}'`, { code: "EISDIR" });
      },
      (error: unknown) => {
        throw cannotRead(`--import file '${importFlag}'`, error);
      },
    );
  }
  const readingFlags = Object.entries({
    "--map": listOption(options, "map")[0],
    "--default-country": stringOption(options, "defaultCountry"),
    "--preset": stringOption(options, "preset"),
    "--delimiter": stringOption(options, "delimiter"),
    "--encoding": stringOption(options, "encoding"),
  })
    .filter(([, given]) => given !== undefined)
    .map(([flag]) => flag);
  // Without a file to read they would do nothing: said before anything is asked or created.
  if (importFlag === undefined && readingFlags.length > 0 && (!ctx.canPrompt || options.yes)) {
    throw usageError(
      `${readingFlags.join(", ")} ${readingFlags.length === 1 ? "reads" : "read"} the file of --import, which is not given.`,
      "Give --import FILE, or leave them out.",
    );
  }
  const flagImport =
    importFlag === undefined
      ? undefined
      : await checkedImport(ctx, importFlag, stringOption(options, "defaultCountry"), options);
  const { plans, meta } = await planCatalogue(ctx);
  const planId = await pickPlan(ctx, options, plans, meta);
  const plan = plans.find((p) => String(p.id) === planId);
  const invite = await choice(
    ctx,
    options.invite === false ? false : undefined,
    true,
    `Send the invitation to ${email}?`,
  );
  let contacts = flagImport;
  if (importFlag === undefined) {
    const chosen = await importFile(ctx);
    if (chosen !== undefined) {
      contacts = await checkedImport(ctx, chosen, await importCountry(ctx, options), options);
    }
  }
  const csvFile = contacts?.path;
  const wantsToken = await choice(
    ctx,
    booleanOption(options, "pricingToken") ? true : undefined,
    false,
    `Create a ${pricingToken.scope} token for the client's pricing page?`,
  );
  if (ctx.canPrompt) {
    const planShown = plan ? planText(plan, meta) : `plan ${planId}`;
    const go = await ctx.prompter.confirm({
      message: `Create workspace '${name}' for ${email} on ${planShown}${invite ? ", invitation sent" : ""}${csvFile ? `, contacts from ${csvFile}` : ""}${wantsToken ? ", with a pricing-page token" : ""}?`,
      default: true,
    });
    if (!go) return { message: "Cancelled: nothing was created." };
  }

  const created = await createWorkspace(ctx, {
    args: [],
    options: { ...options, name, email, plan: planId, invite },
  });
  const workspace = Workspace.parse(created.data);
  const parts: StackPart[] = [{ title: "Workspace", view: recordView(workspace, workspaceFields) }];
  const data: Record<string, unknown> = {
    workspace: created.data,
    contact_import: null,
    pricing_token: null,
  };
  const notes = [
    `Onboarded ${workspace.name} (${workspace.id}): ${workspace.status}${workspace.trial_ends_at ? ` until ${when(workspace.trial_ends_at)}` : ""}, ${plan ? planText(plan, meta) : `plan ${planId}`}.`,
    workspace.invitation.sent
      ? `Invitation sent to ${workspace.contact_email}.`
      : invite
        ? `The invitation to ${workspace.contact_email} is waiting in the service's outbox.`
        : "No invitation sent.",
  ];
  let exitCode = 0;
  const failed = (what: string, retry: string, error: unknown) => {
    if (error instanceof ApiError) exitCode = exitCodes[exitKindOf(error)].code;
    else if (error instanceof CliError) exitCode = error.exitCode;
    else throw error;
    notes.push(`Could not ${what}: ${error.message}`, `  Retry with: ${retry}`);
  };

  const secrets: string[] = [];
  const warnings: string[] = [];
  const tokenRetry = `reseller workspaces tokens create -w ${workspace.id} --name "${pricingToken.name}" --scope ${pricingToken.scope}`;
  // Ctrl-C from here on leaves things half done: say what exists and what does not.
  const interrupt = interruptibleWait(ctx.sleep);
  /** A step's result; Ctrl-C during it ends onboarding with what exists and what does not. */
  const unlessInterrupted = async <T>(during: string, step: Promise<T>): Promise<T> => {
    const done = await interrupt.until(step);
    if (interrupt.interrupted) throw new Interrupted(during);
    return done as T;
  };
  /** What the contact import said as Ctrl-C stopped following it (its id, where it goes on). */
  let importStopped: string | undefined;
  const interrupted = (during: string): CommandResult => ({
    data,
    view: stackView(...parts),
    message: [
      `Interrupted during ${during}.`,
      `Created: workspace ${workspace.name} (${workspace.id}); ${notes[1] ?? ""}`,
      ...(csvFile && data.contact_import === null
        ? [
            importStopped ??
              `The contact import from ${csvFile} may have started; it goes on in the service: see \`reseller contacts imports list -w ${workspace.id}\`.`,
          ]
        : []),
      ...(wantsToken && data.pricing_token === null
        ? [`Not created: the pricing-page token. Create it with: ${tokenRetry}`]
        : []),
    ].join("\n"),
    secrets,
    exitCode: exitCodes.interrupted.code,
  });
  try {
    return await finishOnboarding();
  } catch (error) {
    if (error instanceof Interrupted) return interrupted(error.during);
    throw error;
  } finally {
    interrupt.dispose();
  }

  async function finishOnboarding(): Promise<CommandResult> {
    if (contacts) {
      const { delimiter, encoding } = contacts.read;
      const retry = [
        `reseller contacts import ${contacts.path} -w ${workspace.id}`,
        contacts.country === undefined ? "" : `--default-country ${contacts.country}`,
        mappingFlagsText(contacts.read.mapping),
        delimiter === undefined ? "" : `--delimiter ${delimiterName(delimiter)}`,
        encoding === undefined ? "" : `--encoding ${encoding}`,
      ]
        .filter((part) => part !== "")
        .join(" ");
      // The contacts import itself (upload, progress bar, summary), inside the new workspace.
      const importing = importContacts(
        // No question after the workspace exists: the columns were mapped before.
        { ...ctx, canPrompt: false, workspaceId: async () => workspace.id },
        {
          args: [contacts.path],
          options: {
            onDuplicate: "update",
            wait: true,
            defaultCountry: contacts.country,
            map: mappingFlags(contacts.read.mapping),
            ...(delimiter === undefined ? {} : { delimiter }),
            ...(encoding === undefined ? {} : { encoding }),
          },
        },
      );
      try {
        const imported = await unlessInterrupted("the contact import", importing);
        data.contact_import = imported.data;
        if (imported.view)
          parts.push({
            title: "Contact import",
            key: "contact_import",
            view: withoutIds(imported.view),
          });
        if (imported.message) notes.push(imported.message + answeredLine(contacts.read, options));
        // Rows refused or opt-outs kept reach stderr in every mode, --json and --quiet too.
        warnings.push(...(imported.warnings ?? []));
      } catch (error) {
        if (error instanceof Interrupted) {
          // Once the import is followed, its own Ctrl-C handling stops its progress bar (giving
          // the terminal its cursor back) and names the import: wait briefly for that.
          const stopped = await Promise.race([
            importing.catch(() => undefined),
            // A real 3 s, not ctx.sleep: this bounds how long the process waits, whatever the clock.
            delay(3000, undefined, { ref: false }),
          ]);
          if (stopped?.message) importStopped = stopped.message;
          throw error;
        }
        failed("import the contacts", retry, error);
      }
    }

    if (wantsToken) {
      const retry = tokenRetry;
      try {
        const token = await unlessInterrupted(
          "the pricing-page token",
          createToken(
            ctx,
            {
              path: `/api/v1/workspaces/${encodeURIComponent(workspace.id)}/tokens`,
              noun: "workspace token",
              of: ` of workspace ${workspace.id}`,
            },
            { args: [], options: { name: pricingToken.name, scope: [pricingToken.scope] } },
          ),
        );
        data.pricing_token = token.data;
        if (token.view)
          parts.push({
            title: "Pricing-page token",
            key: "pricing_token",
            view: withoutIds(token.view),
          });
        const secret = (token.data as { token?: string } | undefined)?.token;
        if (secret) secrets.push(`Pricing-page token (${secretShown(token.replayed)}): ${secret}`);
        // A token takes the expiry of the token that made it: a pricing page must know.
        const expiresAt = (token.data as { expires_at?: string | null } | undefined)?.expires_at;
        notes.push(
          `${token.replayed ? "The pricing-page token was created by an earlier run with this idempotency key" : "Created the pricing-page token"} (${pricingToken.scope}). Store it now${token.replayed ? "." : ": it is shown only this once."}${expiresAt ? ` It expires at ${expiresAt}, as the token that created it does.` : ""}`,
        );
      } catch (error) {
        failed("create the pricing-page token", retry, error);
      }
    }

    notes.push(
      "",
      "Next:",
      ...nextSteps(workspace, data.contact_import !== null, command.canPrompt),
    );
    const result: CommandResult = {
      data,
      view: parts.length === 1 ? (parts[0] as { view: View }).view : stackView(...parts),
      message: notes.join("\n"),
      secrets,
      warnings,
    };
    if (exitCode !== 0) result.exitCode = exitCode;
    return result;
  }
};

/** Ctrl-C during a step of onboarding that runs after the workspace exists. */
class Interrupted extends Error {
  constructor(readonly during: string) {
    super(`interrupted during ${during}`);
  }
}
