import { isPlainObject } from "@united-workforce/protocol";
import { ToolError } from "./tool-error.js";

/** A tool call's arguments, read without trusting the model to follow the schema. */
export type ToolArgs = Record<string, unknown>;

export function parseArgs(raw: string): ToolArgs {
  let value: unknown;
  try {
    value = raw.trim() === "" ? {} : JSON.parse(raw);
  } catch (error) {
    throw new ToolError(
      `the arguments are not valid JSON (${(error as Error).message}): ${raw.slice(0, 200)}`,
    );
  }
  if (!isPlainObject(value)) {
    throw new ToolError("the arguments must be a JSON object");
  }
  return value as ToolArgs;
}

export function stringArg(args: ToolArgs, name: string): string {
  const value = args[name];
  if (typeof value !== "string") throw new ToolError(`"${name}" must be a string`);
  return value;
}

export function optionalString(args: ToolArgs, name: string): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new ToolError(`"${name}" must be a string`);
  return value;
}

export function optionalInteger(args: ToolArgs, name: string, min: number): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new ToolError(`"${name}" must be a whole number ≥ ${min}`);
  }
  return value;
}

export function optionalBoolean(args: ToolArgs, name: string): boolean | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw new ToolError(`"${name}" must be true or false`);
  return value;
}
