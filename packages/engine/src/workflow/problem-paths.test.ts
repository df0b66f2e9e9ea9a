import { describe, expect, test } from "vitest";
import { problemPath } from "./problem-paths.js";

describe("problemPath", () => {
  test.each([
    ['unknown top-level key "verison" (did you mean "version"?)', "UNKNOWN_KEY", ["verison"]],
    ['missing required field "graph"', "MISSING_FIELD", []],
    ['"version" is 2, but uwf reads workflow format version 1', "INVALID_VALUE", ["version"]],
    [
      'role "r": unknown key "agnet" (did you mean "agent"?)',
      "UNKNOWN_KEY",
      ["roles", "r", "agnet"],
    ],
    [
      'role "r": "agent: human" and "run" exclude each other',
      "INVALID_VALUE",
      ["roles", "r", "agent"],
    ],
    ['role "r" is not reachable from $START', "UNREACHABLE", ["roles", "r"]],
    [
      'role "r": exitStatus key "300" must be an exit code from 0 to 255 or "default"',
      "INVALID_VALUE",
      ["roles", "r", "exitStatus"],
    ],
    ['role "r" can never reach $END: every path loops', "UNREACHABLE", ["graph", "r"]],
    ['role "r" graph is missing status keys: done', "STATUS_KEYS", ["graph", "r"]],
    [
      'role "r" frontmatter: unknown format "emial" at properties.to (did you mean "email"?)',
      "SCHEMA",
      ["roles", "r", "frontmatter", "properties", "to", "format"],
    ],
    ['edge a→done: unknown target role "x"', "UNKNOWN_ROLE", ["graph", "a", "done", "role"]],
    ['graph[a]: "a" is not a role declared under "roles"', "UNKNOWN_ROLE", ["graph", "a"]],
    ['graph[a][done]: unknown key "promt"', "UNKNOWN_KEY", ["graph", "a", "done", "promt"]],
    [
      "graph[a][done].fanout.concurrency must be a whole number",
      "INVALID_VALUE",
      ["graph", "a", "done", "fanout", "concurrency"],
    ],
    [
      'graph[a][done]: prompt uses the partial "{{> x}}"',
      "TEMPLATE",
      ["graph", "a", "done", "prompt"],
    ],
    [
      'location variable "x" in graph[a][done] not found',
      "TEMPLATE",
      ["graph", "a", "done", "location"],
    ],
    ['$START must have edges with statuses "new" and "resume"', "STATUS_KEYS", ["graph", "$START"]],
    [
      'inputs.properties.size: type "int" is not a JSON Schema type',
      "SCHEMA",
      ["inputs", "properties", "size"],
    ],
    ['workflow name mismatch: file "x.yaml" implies name "x"', "NAME_MISMATCH", ["name"]],
    ['status key "_" is no longer valid', "INVALID_VALUE", null],
  ])("%s", (message, code, path) => {
    expect(problemPath(message)).toEqual({ code, path });
  });
});
