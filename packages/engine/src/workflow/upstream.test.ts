import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { loadAndValidate } from "./resolve.js";

// Upstream's own workflow files, 0.2 to 0.8 (see __fixtures__/upstream/README.md).
const UPSTREAM = fileURLToPath(new URL("./__fixtures__/upstream/", import.meta.url));

function workflowFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map((entry) => relative(UPSTREAM, join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * The files uwf still refuses, each with every error it gives (as substrings): upstream's test
 * fixtures are named `*.workflow.yaml`, which does not imply their declared names; the rest use
 * what uwf's templates and schemas do not have, and the message says what to write instead.
 */
const NORMALIZE_REFUSED = [
  'frontmatter oneOf[0] must list "$status" in "required"',
  'frontmatter oneOf[1] must list "$status" in "required"',
  'frontmatter oneOf[2] must list "$status" in "required"',
  'prompt variable "repoPath" in graph[$START][new] not found: $START edges are rendered with no output fields: to give "repoPath" when a thread starts, declare it under "inputs:"',
  'prompt variable "repoPath" in graph[$START][resume] not found',
];
const REFUSED: Record<string, string[]> = {
  "0.2/packages/cli/src/__tests__/fixtures/e2e-count.workflow.yaml": [
    'file "e2e-count.workflow.yaml" implies name "e2e-count.workflow" but YAML declares name "test-count"',
  ],
  "0.2/packages/cli/src/__tests__/fixtures/e2e-linear.workflow.yaml": [
    'file "e2e-linear.workflow.yaml" implies name "e2e-linear.workflow" but YAML declares name "test-linear"',
  ],
  "0.2/packages/cli/src/__tests__/fixtures/e2e-loop.workflow.yaml": [
    'file "e2e-loop.workflow.yaml" implies name "e2e-loop.workflow" but YAML declares name "test-loop"',
  ],
  "0.2/packages/cli/src/__tests__/fixtures/e2e-mustache.workflow.yaml": [
    'file "e2e-mustache.workflow.yaml" implies name "e2e-mustache.workflow" but YAML declares name "test-mustache"',
  ],
  "0.2/packages/cli/src/__tests__/fixtures/e2e-suspend.workflow.yaml": [
    'file "e2e-suspend.workflow.yaml" implies name "e2e-suspend.workflow" but YAML declares name "test-suspend"',
  ],
  "0.4/packages/cli/src/__tests__/fixtures/e2e-count.workflow.yaml": [
    'file "e2e-count.workflow.yaml" implies name "e2e-count.workflow" but YAML declares name "test-count"',
  ],
  "0.4/packages/cli/src/__tests__/fixtures/e2e-linear.workflow.yaml": [
    'file "e2e-linear.workflow.yaml" implies name "e2e-linear.workflow" but YAML declares name "test-linear"',
  ],
  "0.4/packages/cli/src/__tests__/fixtures/e2e-liquid.workflow.yaml": [
    'file "e2e-liquid.workflow.yaml" implies name "e2e-liquid.workflow" but YAML declares name "test-liquid"',
  ],
  "0.4/packages/cli/src/__tests__/fixtures/e2e-loop.workflow.yaml": [
    'file "e2e-loop.workflow.yaml" implies name "e2e-loop.workflow" but YAML declares name "test-loop"',
  ],
  "0.4/packages/cli/src/__tests__/fixtures/e2e-suspend.workflow.yaml": [
    'file "e2e-suspend.workflow.yaml" implies name "e2e-suspend.workflow" but YAML declares name "test-suspend"',
  ],
  "0.4/examples/normalize-bun-monorepo.yaml": NORMALIZE_REFUSED,
  "0.5/examples/normalize-bun-monorepo.yaml": NORMALIZE_REFUSED,
  "0.4/examples/review-pr.yaml": [
    'prompt variable "prNumber" in graph[$START][new] not found: $START edges are rendered with no output fields: to give "prNumber" when a thread starts, declare it under "inputs:"',
    'prompt variable "prNumber" in graph[$START][resume] not found',
    'prompt variable "repo" in graph[$START][new] not found',
    'prompt variable "repo" in graph[$START][resume] not found',
    'prompt variable "repoPath" in graph[$START][new] not found',
    'prompt variable "repoPath" in graph[$START][resume] not found',
  ],
  "0.5/examples/socratic-questioning.yaml": [
    'prompt variable "_body" in graph[thinker][respond] not found in role "thinker" frontmatter: uwf has no {{_body}}',
    'prompt variable "_body" in graph[thinker][synthesis] not found',
    'prompt variable "_body" in graph[questioner][ask] not found',
  ],
  "0.5/examples/solve-issue.yaml": [
    'graph[planner][ready]: prompt uses a Liquid filter, {{specFiles | join: ", "}}, but uwf templates are mustache, which has no filters: write {{{specFiles}}}',
    "graph[planner][continue]: prompt uses a Liquid filter",
  ],
};

describe("upstream workflow files", () => {
  const files = workflowFiles(UPSTREAM);

  test("every release's files are here", () => {
    expect(files.length).toBe(28);
    for (const refused of Object.keys(REFUSED)) expect(files).toContain(refused);
  });

  test.each(files)("%s", async (file) => {
    const loaded = await loadAndValidate(join(UPSTREAM, file));
    const expected = REFUSED[file] ?? [];
    expect(loaded.valid).toBe(expected.length === 0);
    // Every error is one the table expects, and every expected one is given.
    for (const error of loaded.errors) {
      expect(
        expected.some((part) => error.includes(part)),
        error,
      ).toBe(true);
    }
    for (const part of expected) {
      expect(
        loaded.errors.some((error) => error.includes(part)),
        part,
      ).toBe(true);
    }
  });
});
