import { replaceVariables, type TemplateProblem } from "../../../contract/template-rules.js";
import type { Template } from "../../../contract/templates.js";
import { when } from "../../output/time.js";
import type { Column, Paint, View } from "../../output/view.js";
import { recordView, stackView, tableView, textView } from "../../output/view.js";

/** `order_update (en_US)`: how messages name a template. */
export function templateLabel(t: { name: string; language: string }): string {
  return `${t.name} (${t.language})`;
}

function outcome(t: Template, paint: Paint): string {
  if (t.status !== "rejected") return "";
  return paint.bad(t.rejection_reason ?? "rejected");
}

/** Columns of a template list; CSV headers are the wire's field names. */
export const templateColumns: Column<Template>[] = [
  { header: "Id", key: "id", value: (t) => t.id },
  { header: "Name", key: "name", value: (t) => t.name, display: (t, paint) => paint.bold(t.name) },
  { header: "Language", key: "language", value: (t) => t.language },
  { header: "Category", key: "category", value: (t) => t.category },
  {
    header: "Status",
    key: "status",
    value: (t) => t.status,
    display: (t, paint) => paint.status(t.status),
  },
  {
    header: "Rejection",
    key: "rejection_reason",
    value: (t) => t.rejection_reason,
    display: outcome,
  },
  {
    header: "Updated",
    key: "updated_at",
    value: (t) => t.updated_at,
    display: (t) => when(t.updated_at).slice(0, 16),
  },
];

/** The fields of one template, in reading order. */
export const templateFields: Column<Template>[] = [
  { header: "Id", key: "id", value: (t) => t.id },
  { header: "Name", key: "name", value: (t) => t.name, display: (t, paint) => paint.bold(t.name) },
  { header: "Language", key: "language", value: (t) => t.language },
  { header: "Category", key: "category", value: (t) => t.category },
  {
    header: "Status",
    key: "status",
    value: (t) => t.status,
    display: (t, paint) => paint.status(t.status),
  },
  {
    header: "Rejection",
    key: "rejection_reason",
    value: (t) => t.rejection_reason,
    display: (t, paint) => (t.rejection_reason ? paint.bad(t.rejection_reason) : "—"),
  },
  {
    header: "Why",
    key: "rejection_detail",
    value: (t) => t.rejection_detail,
    display: (t) => t.rejection_detail ?? "—",
  },
  { header: "Workspace", key: "workspace_id", value: (t) => t.workspace_id },
  {
    header: "Submitted",
    key: "submitted_at",
    value: (t) => t.submitted_at,
    display: (t, paint) => (t.submitted_at ? when(t.submitted_at) : paint.dim("not yet (draft)")),
  },
  {
    header: "Reviewed",
    key: "reviewed_at",
    value: (t) => t.reviewed_at,
    display: (t) => when(t.reviewed_at),
  },
  {
    header: "Created",
    key: "created_at",
    value: (t) => t.created_at,
    display: (t) => when(t.created_at),
  },
  {
    header: "Updated",
    key: "updated_at",
    value: (t) => t.updated_at,
    display: (t) => when(t.updated_at),
  },
];

/** One template as a record, with its preview under it at a terminal. */
export function templateView(template: Template, withPreview: boolean): View {
  const record = recordView(template, templateFields);
  if (!withPreview) return record;
  return stackView(
    { view: record },
    { title: "Preview", view: textView((paint) => renderPreview(template, paint)) },
  );
}

/** The problems of a template, as a table (FIELD, RULE, PROBLEM). */
export function problemTable(problems: readonly TemplateProblem[]): View {
  return tableView<TemplateProblem>(
    problems,
    [
      { header: "Field", key: "field", value: (p) => p.field },
      {
        header: "Rule",
        key: "rule",
        value: (p) => p.rule,
        display: (p, paint) => paint.warn(p.rule),
      },
      { header: "Problem", key: "message", value: (p) => p.message },
    ],
    { ids: (p) => p.field, empty: "No problems." },
  );
}

// ---------------------------------------------------------------------------------------------
// Preview: the message as a phone would show it, examples filled in.

type Loose = Record<string, unknown>;

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Replaces `{{n}}` with the n-th example (highlighted), or leaves the placeholder. */
function fill(text: string, examples: unknown[], paint: Paint): string {
  return replaceVariables(text, (n, raw) => {
    const value = str(examples[n - 1]);
    return value === undefined ? paint.warn(raw) : paint.bold(value);
  });
}

/** Breaks a paragraph into lines of at most `width` characters, at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(" ")) {
      if (line !== "" && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else {
        line = line === "" ? word : `${line} ${word}`;
      }
    }
    lines.push(line);
  }
  return lines;
}

function buttonLabel(button: Loose, paint: Paint): string {
  const text = str(button.text);
  switch (str(button.type)?.toUpperCase()) {
    case "QUICK_REPLY":
      return `↩ ${text ?? ""}`;
    case "URL":
      return `↗ ${text ?? ""} ${paint.dim(`(${fill(str(button.url) ?? "", asList(button.example), paint)})`)}`;
    case "PHONE_NUMBER":
      return `✆ ${text ?? ""} ${paint.dim(`(${str(button.phone_number) ?? ""})`)}`;
    case "COPY_CODE":
      return `⧉ Copy offer code ${paint.dim(`(${str(button.example) ?? ""})`)}`;
    case "OTP":
      return `⧉ ${text ?? (str(button.otp_type)?.toUpperCase() === "COPY_CODE" ? "Copy code" : "Autofill")}`;
    default:
      return text ?? "?";
  }
}

/**
 * The template as a phone would show it, with example values in place of the variables.
 * Works on any definition-shaped value (before or after checking), skipping what it cannot read.
 */
export function renderPreview(template: unknown, paint: Paint, width = 60): string {
  const t = (typeof template === "object" && template !== null ? template : {}) as Loose;
  const components = asList(t.components).filter(
    (c): c is Loose => typeof c === "object" && c !== null,
  );
  const byType = (type: string) => components.find((c) => str(c.type)?.toUpperCase() === type);
  const auth = str(t.category)?.toLowerCase() === "authentication";
  const lines: string[] = [];

  const header = byType("HEADER");
  if (header) {
    const format = str(header.format)?.toUpperCase() ?? "TEXT";
    const example = (header.example ?? {}) as Loose;
    if (format === "TEXT") {
      lines.push(paint.bold(fill(str(header.text) ?? "", asList(example.header_text), paint)));
    } else {
      lines.push(
        paint.dim(
          `[${format.toLowerCase()}${format === "LOCATION" ? "" : `: ${str(asList(example.header_handle)[0]) ?? "…"}`}]`,
        ),
      );
    }
    lines.push("");
  }
  const body = byType("BODY");
  if (auth) {
    lines.push(`${paint.bold("123456")} is your verification code.`);
    if (body?.add_security_recommendation === true) {
      lines.push("For your security, do not share this code.");
    }
  } else if (body) {
    const example = (body.example ?? {}) as Loose;
    const values = asList(asList(example.body_text)[0]);
    lines.push(...wrap(str(body.text) ?? "", width).map((line) => fill(line, values, paint)));
  }
  const footer = byType("FOOTER");
  if (footer) {
    const minutes = footer.code_expiration_minutes;
    const text =
      str(footer.text) ??
      (typeof minutes === "number" ? `This code expires in ${minutes} minutes.` : "");
    if (text) lines.push(paint.dim(text));
  }
  const buttons = asList(byType("BUTTONS")?.buttons).filter(
    (b): b is Loose => typeof b === "object" && b !== null,
  );
  if (buttons.length > 0) {
    lines.push(paint.dim("─".repeat(Math.min(width, 30))));
    for (const button of buttons) lines.push(buttonLabel(button, paint));
  }
  const title = paint.dim(
    `${str(t.name) ?? "?"} · ${str(t.language) ?? "?"} · ${str(t.category)?.toLowerCase() ?? "?"}`,
  );
  return [title, ...lines.map((line) => `${paint.dim("│")} ${line}`.trimEnd())].join("\n");
}
