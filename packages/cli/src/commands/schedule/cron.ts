import { UwfError } from "@united-workforce/util";

/** One field of a five-field cron expression, with the values cron allows in it. */
interface CronField {
  name: string;
  min: number;
  max: number;
}

const FIELDS: readonly CronField[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  // 0 and 7 are both Sunday.
  { name: "day of week", min: 0, max: 7 },
];

/** A field's value as written: `*`, or comma-separated items. */
type CronPart =
  | { kind: "any" }
  | { kind: "step"; from: number; to: number | null; step: number }
  | { kind: "range"; from: number; to: number }
  | { kind: "value"; value: number };

/** A checked cron expression: the text normalised to single spaces, and each field's parts. */
export interface CronSchedule {
  expression: string;
  fields: CronPart[][];
}

const EXAMPLE_HINT =
  'Five fields: minute hour day-of-month month day-of-week, with *, numbers, lists (1,15), ranges (1-5) and steps (*/15), e.g. --cron "30 6 * * 1-5".';

/**
 * The expression checked: five fields of `*`, numbers, lists, ranges and `/n` steps, each
 * within its field's range. Names (`mon`, `jan`) and macros (`@daily`) are refused with the
 * numeric form to use, so every target reads the same schedule.
 */
export function parseCron(expression: string): CronSchedule {
  const words = expression
    .trim()
    .split(/\s+/)
    .filter((word) => word !== "");
  if (words.length !== FIELDS.length) {
    throw new UwfError(
      "USAGE",
      `--cron ${JSON.stringify(expression)} has ${words.length} field${words.length === 1 ? "" : "s"}, not 5`,
      { hint: EXAMPLE_HINT },
    );
  }
  const fields = words.map((word, index) => parseField(word, FIELDS[index] as CronField));
  return { expression: words.join(" "), fields };
}

function parseField(word: string, field: CronField): CronPart[] {
  if (word === "*") return [{ kind: "any" }];
  return word.split(",").map((item) => parseItem(item, word, field));
}

function parseItem(item: string, word: string, field: CronField): CronPart {
  const refuse = (problem: string): never => {
    throw new UwfError("USAGE", `--cron: the ${field.name} field "${word}" ${problem}`, {
      hint: `The ${field.name} takes ${field.min}-${field.max}. ${EXAMPLE_HINT}`,
    });
  };
  const number = (text: string): number => {
    if (!/^\d+$/.test(text)) return refuse(`holds "${text}", which is not a number`);
    const value = Number(text);
    if (value < field.min || value > field.max) {
      return refuse(`holds ${value}, outside ${field.min}-${field.max}`);
    }
    return value;
  };
  const [base = "", stepText, ...extra] = item.split("/");
  if (extra.length > 0) return refuse(`has more than one "/" in "${item}"`);
  if (stepText !== undefined) {
    if (!/^\d+$/.test(stepText) || Number(stepText) === 0) {
      return refuse(`has the step "/${stepText}"; a step is a whole number from 1`);
    }
    const step = Number(stepText);
    if (base === "*") return { kind: "step", from: field.min, to: null, step };
    const [from, to] = rangeOf(base);
    return { kind: "step", from, to, step };
  }
  if (base.includes("-")) {
    const [from, to] = rangeOf(base);
    return { kind: "range", from, to: to as number };
  }
  return { kind: "value", value: number(base) };

  function rangeOf(text: string): [number, number | null] {
    const bounds = text.split("-");
    if (bounds.length === 1) return [number(text), null];
    if (bounds.length !== 2) return refuse(`has the range "${text}", not first-last`);
    const from = number(bounds[0] as string);
    const to = number(bounds[1] as string);
    if (from > to) return refuse(`has the range ${from}-${to}, which runs backwards`);
    return [from, to];
  }
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;

/**
 * The schedule as systemd's `OnCalendar=` (`DOW YYYY-MM-DD HH:MM:SS`). systemd matches a day
 * when both day fields match, cron when either does (if both are restricted): such an
 * expression is refused rather than changed in meaning.
 */
export function toOnCalendar(schedule: CronSchedule): string {
  const [minute, hour, day, month, weekday] = schedule.fields as [
    CronPart[],
    CronPart[],
    CronPart[],
    CronPart[],
    CronPart[],
  ];
  const restricted = (parts: CronPart[]) => !(parts.length === 1 && parts[0]?.kind === "any");
  if (restricted(day) && restricted(weekday)) {
    throw new UwfError(
      "USAGE",
      `--cron "${schedule.expression}" restricts both the day of month and the day of week, which cron reads as either and systemd as both`,
      { hint: "Keep one of the two day fields *, or write one timer per day field." },
    );
  }
  const [minuteField, hourField, dayField, monthField] = FIELDS as [
    CronField,
    CronField,
    CronField,
    CronField,
  ];
  const date = `*-${calendarField(month, monthField, 2)}-${calendarField(day, dayField, 2)}`;
  const time = `${calendarField(hour, hourField, 2)}:${calendarField(minute, minuteField, 2)}:00`;
  const days = restricted(weekday) ? `${weekdayNames(weekday)} ` : "";
  return `${days}${date} ${time}`;
}

/** A field in systemd's syntax: `a..b` ranges, `a/n` repetition; a stepped range is listed. */
function calendarField(parts: CronPart[], field: CronField, width: number): string {
  const pad = (value: number) => String(value).padStart(width, "0");
  return parts.map((part) => calendarPart(part, field, pad)).join(",");
}

function calendarPart(part: CronPart, field: CronField, pad: (value: number) => string): string {
  switch (part.kind) {
    case "any":
      return "*";
    case "value":
      return pad(part.value);
    case "range":
      return `${pad(part.from)}..${pad(part.to)}`;
    case "step":
      return part.to === null
        ? `${pad(part.from)}/${part.step}`
        : stepValues(part, field).map(pad).join(",");
  }
}

function stepValues(part: Extract<CronPart, { kind: "step" }>, field: CronField): number[] {
  const values: number[] = [];
  for (let value = part.from; value <= (part.to ?? field.max); value += part.step) {
    values.push(value);
  }
  return values;
}

/** The weekdays, Monday first as systemd orders them, consecutive days joined as `Mon..Fri`. */
function weekdayNames(parts: CronPart[]): string {
  const weekdayField = FIELDS[4] as CronField;
  const days = new Set<number>();
  for (const part of parts) {
    const values =
      part.kind === "value"
        ? [part.value]
        : part.kind === "range"
          ? stepValues({ kind: "step", from: part.from, to: part.to, step: 1 }, weekdayField)
          : part.kind === "step"
            ? stepValues(part, weekdayField)
            : [0, 1, 2, 3, 4, 5, 6];
    for (const value of values) days.add(value % 7);
  }
  const mondayFirst = [1, 2, 3, 4, 5, 6, 0].filter((day) => days.has(day));
  const runs: number[][] = [];
  for (const day of mondayFirst) {
    const run = runs.at(-1);
    const previous = run?.at(-1);
    if (run !== undefined && previous !== undefined && (previous + 1) % 7 === day && day !== 1) {
      run.push(day);
    } else {
      runs.push([day]);
    }
  }
  return runs
    .map((run) => {
      const first = WEEKDAYS[run[0] as number];
      const last = WEEKDAYS[run.at(-1) as number];
      if (run.length === 1) return first;
      if (run.length === 2) return `${first},${last}`;
      return `${first}..${last}`;
    })
    .join(",");
}
