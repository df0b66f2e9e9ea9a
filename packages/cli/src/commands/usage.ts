import {
  USAGE_DIMENSIONS as DIMENSIONS,
  type UsageDimension as Dimension,
  type UsageDocument,
} from "@united-workforce/protocol";
import { costText, groupDigits, tokensText, UwfError } from "@united-workforce/util";
import { columns } from "../output/table.js";
import { defineCommand, result } from "./command.js";

export default defineCommand({
  path: ["usage"],
  summary:
    "tokens and cost of the steps run in a time range, grouped by thread, workflow, role, agent or model",
  description:
    "Each step counts once (a prefix forks share belongs to the thread that ran it) and by when it started. A step whose agent reported no cost is counted as unknown, never as $0: a total that lacks some costs shows as a lower bound with the number of steps whose cost is unknown.",
  options: [
    {
      flags: "--by <dims>",
      type: "string",
      description: `group by one or more of ${DIMENSIONS.join(", ")} (comma-separated)`,
    },
    { flags: "--since <time>", type: "time", description: "steps started at or after this time" },
    { flags: "--until <time>", type: "time", description: "steps started before this time" },
  ],
  examples: [
    "uwf usage --since 7d",
    "uwf usage --by workflow,model --since 2026-11-01",
    "uwf usage --by thread --format json",
  ],
  async run(ctx, _args, options) {
    const { usageReport } = await import("@united-workforce/engine");
    const by = parseDimensions(options.by as string | undefined);
    const since = options.since ?? undefined;
    const until = options.until ?? undefined;
    if (since !== undefined && until !== undefined && until <= since) {
      throw new UwfError("USAGE", "--until must be later than --since", {
        hint: "e.g. uwf usage --since 2026-11-01 --until 2026-11-08",
      });
    }
    const doc = await usageReport(await ctx.store(), {
      by,
      ...(since !== undefined ? { sinceMs: since } : {}),
      ...(until !== undefined ? { untilMs: until } : {}),
    });
    return result(doc, renderUsage);
  },
});

function parseDimensions(raw: string | undefined): Dimension[] {
  if (raw === undefined) return [];
  const names = raw
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const dims: Dimension[] = [];
  for (const name of names) {
    if (!(DIMENSIONS as readonly string[]).includes(name)) {
      throw new UwfError("USAGE", `--by: unknown dimension "${name}"`, {
        hint: `Group by any of ${DIMENSIONS.join(", ")}, e.g. --by workflow,model.`,
      });
    }
    if (!dims.includes(name as Dimension)) dims.push(name as Dimension);
  }
  return dims;
}

export function renderUsage(doc: UsageDocument): string {
  const range =
    doc.since === null && doc.until === null
      ? ""
      : doc.until === null
        ? ` since ${doc.since}`
        : doc.since === null
          ? ` before ${doc.until}`
          : ` from ${doc.since} to ${doc.until}`;
  if (doc.total.steps === 0) return `no steps started${range}`;
  const header = [...doc.by.map((d) => d.toUpperCase()), "STEPS", "TOKENS", "COST"];
  const rows = doc.rows.map((row) => [
    ...doc.by.map((d) => {
      const value = row.key[d];
      return typeof value === "string" ? value : "(unknown)";
    }),
    groupDigits(row.steps),
    tokensText(row),
    costText(row),
  ]);
  const total = [
    ...(doc.by.length === 0 ? [] : ["total", ...doc.by.slice(1).map(() => "")]),
    groupDigits(doc.total.steps),
    tokensText(doc.total),
    costText(doc.total),
  ];
  return [
    `steps started${range === "" ? " at any time" : range}:`,
    columns([header, ...rows, total]),
  ].join("\n");
}
