import { isUwfError } from "@united-workforce/util";
import { Option } from "commander";
import { describe, expect, it } from "vitest";
import type { OptionSpec } from "./command.js";
import { COMMANDS } from "./index.js";
import {
  checkArgument,
  durationMs,
  flagName,
  optionKey,
  parseOptionValue,
  timeMs,
  valueNote,
} from "./option-values.js";

const NOW = Date.parse("2026-03-10T12:00:00Z");

function refusal(run: () => unknown): { code: string; message: string; hint: string | null } {
  try {
    run();
  } catch (error) {
    if (isUwfError(error)) return { code: error.code, message: error.message, hint: error.hint };
    throw error;
  }
  throw new Error("expected a refusal");
}

const count: OptionSpec = {
  flags: "-c, --count <n>",
  type: "integer",
  min: 1,
  default: "1",
  description: "run up to n steps",
};

describe("integer options", () => {
  it("take whole numbers written in digits, within their bounds", () => {
    expect(parseOptionValue(count, "12", NOW)).toBe(12);
    expect(parseOptionValue(count, " 3 ", NOW)).toBe(3);
    const bounded: OptionSpec = { ...count, min: 0, max: 9 };
    expect(parseOptionValue(bounded, "0", NOW)).toBe(0);
    expect(parseOptionValue(bounded, "9", NOW)).toBe(9);
  });

  it("refuse anything else with a usage error naming the flag", () => {
    expect(refusal(() => parseOptionValue(count, "abc", NOW))).toEqual({
      code: "USAGE",
      message: '--count must be a whole number ≥ 1, got "abc"',
      hint: "e.g. --count 1",
    });
    for (const bad of ["0", "-1", "1.5", "1e3", "0x10", "", "99999999999999999999"]) {
      expect(refusal(() => parseOptionValue(count, bad, NOW)).code, bad).toBe("USAGE");
    }
    const bounded: OptionSpec = { ...count, min: 0, max: 9, hint: "Pick a digit." };
    expect(refusal(() => parseOptionValue(bounded, "10", NOW))).toEqual({
      code: "USAGE",
      message: '--count must be a whole number from 0 to 9, got "10"',
      hint: "Pick a digit.",
    });
  });

  it("parse their default like a typed value, and are undefined without one", () => {
    expect(parseOptionValue(count, undefined, NOW)).toBe(1);
    expect(parseOptionValue({ ...count, default: undefined }, undefined, NOW)).toBeUndefined();
  });
});

describe("durations", () => {
  it("are milliseconds", () => {
    expect(durationMs("500ms")).toBe(500);
    expect(durationMs("30s")).toBe(30_000);
    expect(durationMs("5m")).toBe(300_000);
    expect(durationMs("1.5h")).toBe(5_400_000);
    expect(durationMs("7d")).toBe(604_800_000);
    expect(durationMs("2w")).toBe(1_209_600_000);
    expect(durationMs("0")).toBe(0);
  });

  it("take a bare number only when the option names its unit", () => {
    expect(durationMs("30")).toBeNull();
    expect(durationMs("30", "s")).toBe(30_000);
    expect(durationMs("0.5", "s")).toBe(500);
    for (const bad of ["soon", "5 m", "-5m", "5M", "m", "1h30m"])
      expect(durationMs(bad, "s"), bad).toBeNull();
  });

  it("say which forms they take when refused", () => {
    const timeout: OptionSpec = { flags: "--timeout <s>", type: "duration", description: "" };
    expect(refusal(() => parseOptionValue(timeout, "soon", NOW)).message).toBe(
      '--timeout must be a duration like 500ms, 30s, 5m, 1h, 7d, or 0, got "soon"',
    );
    expect(refusal(() => parseOptionValue({ ...timeout, bareUnit: "s" }, "x", NOW)).message).toBe(
      '--timeout must be a number of seconds or a duration like 30s, 5m, 1h, got "x"',
    );
  });
});

describe("times", () => {
  it("are ISO times or ages before now, in epoch milliseconds", () => {
    expect(timeMs("2026-01-31T00:00:00Z", NOW)).toBe(Date.parse("2026-01-31T00:00:00Z"));
    expect(timeMs("2026-01-31T10:00:00.5+02:00", NOW)).toBe(Date.parse("2026-01-31T08:00:00.500Z"));
    expect(timeMs("7d", NOW)).toBe(NOW - 7 * 86_400_000);
    expect(timeMs("0", NOW)).toBe(NOW);
  });

  it("refuse what Date.parse would guess at", () => {
    for (const bad of ["1", "yesterday", "Jan 5", "2026-13-01", "2026-01-31T25:00:00Z"])
      expect(timeMs(bad, NOW), bad).toBeNull();
  });
});

describe("other option types", () => {
  it("check enums against their choices", () => {
    const level: OptionSpec = {
      flags: "--level <level>",
      type: "enum",
      choices: ["info", "warn"],
      description: "",
    };
    expect(parseOptionValue(level, "warn", NOW)).toBe("warn");
    expect(refusal(() => parseOptionValue(level, "loud", NOW))).toEqual({
      code: "USAGE",
      message: '--level must be one of info, warn, got "loud"',
      hint: "e.g. --level info",
    });
  });

  it("check hashes (and their keywords) with the CAS's own error code", () => {
    const type: OptionSpec = {
      flags: "-t, --type <type>",
      type: "hash",
      keywords: ["schema"],
      description: "",
    };
    expect(parseOptionValue(type, "3QWJ6G2V7ZK1M", NOW)).toBe("3QWJ6G2V7ZK1M");
    expect(parseOptionValue(type, "schema", NOW)).toBe("schema");
    // Any case, and prefixes of 4 or more: the store resolves them before the handler runs.
    expect(parseOptionValue(type, "3qwj6g2v7zk1m", NOW)).toBe("3QWJ6G2V7ZK1M");
    expect(parseOptionValue(type, "3qwj", NOW)).toBe("3QWJ");
    const short = refusal(() => parseOptionValue(type, "3qw", NOW));
    expect(short.code).toBe("HASH_INVALID");
    expect(short.message).toMatch(/^--type must be a CAS hash \(13 .*\) or one of schema, got/);
    expect(short.hint).toBe("Give at least 4 characters of the hash.");
    expect(refusal(() => parseOptionValue(type, "3QWJ6G2V7ZK1MA", NOW)).code).toBe("HASH_INVALID");
  });

  it("check thread ids", () => {
    const thread: OptionSpec = { flags: "--thread <id>", type: "thread", description: "" };
    expect(parseOptionValue(thread, "01ARZ3NDEKTSV4RRFFQ69G5FAV", NOW)).toBe(
      "01ARZ3NDEKTSV4RRFFQ69G5FAV",
    );
    expect(parseOptionValue(thread, "01arz3ndektsv4rrffq69g5fav", NOW)).toBe(
      "01ARZ3NDEKTSV4RRFFQ69G5FAV",
    );
    expect(parseOptionValue(thread, "01arz", NOW)).toBe("01ARZ");
    expect(refusal(() => parseOptionValue(thread, "01a", NOW)).hint).toBe(
      "Give at least 4 characters of the thread id.",
    );
    expect(refusal(() => parseOptionValue(thread, "../x", NOW)).hint).toBe(
      "`uwf thread list` shows the thread ids.",
    );
    // Four characters, but no ULID starts with 8, 9 or a letter.
    expect(refusal(() => parseOptionValue(thread, "8ABC", NOW)).hint).toBe(
      "A thread id starts with a digit from 0 to 7 (its time part); `uwf thread list` shows the thread ids.",
    );
    expect(refusal(() => parseOptionValue(thread, "A6R5S823P5QTB", NOW)).hint).toBe(
      "That looks like a step or node hash, not a thread id: `uwf step show <hash>` shows a step, `uwf thread list` the thread ids.",
    );
  });

  it("make booleans false unless given, and refuse a blank required string", () => {
    const flag: OptionSpec = { flags: "--yes", type: "boolean", description: "" };
    expect(parseOptionValue(flag, undefined, NOW)).toBe(false);
    expect(parseOptionValue(flag, true, NOW)).toBe(true);
    const prompt: OptionSpec = {
      flags: "-p, --prompt <text>",
      type: "string",
      required: true,
      description: "",
      hint: 'Say what to do: -p "…"',
    };
    expect(parseOptionValue(prompt, "go", NOW)).toBe("go");
    for (const missing of [undefined, "  "]) {
      expect(refusal(() => parseOptionValue(prompt, missing, NOW))).toEqual({
        code: "USAGE",
        message: "--prompt is required and must not be empty",
        hint: 'Say what to do: -p "…"',
      });
    }
  });

  it("collect every value of a repeatable string, in order, and an empty list without one", () => {
    const input: OptionSpec = {
      flags: "--input <name=value>",
      type: "string",
      repeatable: true,
      description: "",
    };
    expect(parseOptionValue(input, undefined, NOW)).toEqual([]);
    expect(parseOptionValue(input, ["a=1", "b=2"], NOW)).toEqual(["a=1", "b=2"]);
    expect(valueNote(input)).toBe("repeatable");
  });
});

describe("positional arguments", () => {
  it("are checked by type and named as the usage line shows them", () => {
    expect(() => checkArgument({ name: "x", description: "" }, "anything")).not.toThrow();
    expect(() =>
      checkArgument({ name: "day", type: "day", description: "" }, "2024-02-29"),
    ).not.toThrow();
    const day = refusal(() =>
      checkArgument({ name: "date", type: "day", description: "", required: false }, "2026-02-30"),
    );
    expect(day.message).toBe('[date] must be a UTC day like 2026-01-31, got "2026-02-30"');
    expect(
      refusal(() => checkArgument({ name: "hash", type: "hash", description: "" }, "x")).code,
    ).toBe("HASH_INVALID");
    expect(
      refusal(() => checkArgument({ name: "thread", type: "thread", description: "" }, "x")).code,
    ).toBe("USAGE");
  });
});

describe("the command table's options", () => {
  const all = COMMANDS.flatMap((spec) =>
    (spec.options ?? []).map((option) => ({ command: spec.path.join(" "), option })),
  );

  it("take a value exactly when they are not boolean", () => {
    for (const { command, option } of all) {
      expect(/[<[]/.test(option.flags), `${command} ${option.flags}`).toBe(
        option.type !== "boolean",
      );
    }
  });

  it("are keyed as commander keys them", () => {
    for (const { option } of all) {
      expect(optionKey(option)).toBe(new Option(option.flags).attributeName());
      expect(flagName(option)).toMatch(/^--[a-z][a-z-]*$/);
    }
  });

  it("have defaults their own parser accepts", () => {
    for (const { command, option } of all) {
      expect(
        () => parseOptionValue(option, undefined, NOW),
        `${command} ${option.flags}`,
      ).not.toThrow(/must be/);
    }
  });

  it("say in help what a typed value must look like", () => {
    expect(valueNote(count)).toBe("whole number ≥ 1; default: 1");
    for (const { command, option } of all) {
      if (option.type !== "string" && option.type !== "boolean")
        expect(valueNote(option), `${command} ${option.flags}`).not.toBe("");
    }
  });
});
