import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { normalise } from "./normalise.js";

describe("normalise", () => {
  it("replaces hashes, ULIDs, ISO times, temp homes and durations", () => {
    const home = join(tmpdir(), "uwf-test-abc123");
    const text = [
      "thread 01JZ7K9QW3M8X5V2N4R6T8Y0AB started at 2026-05-25T06:22:53.123Z",
      "head 5GWKR8TN1V3JA (took 1234ms, then 12 ms)",
      `config saved to ${home}/config.yaml`,
    ].join("\n");
    expect(normalise(text)).toBe(
      [
        "thread <ULID> started at <TIME>",
        "head <HASH> (took <N>ms, then <N>ms)",
        "config saved to <HOME>/config.yaml",
      ].join("\n"),
    );
  });

  it("replaces the given paths, longest first", () => {
    expect(normalise("/srv/a and /srv/a/b", { paths: ["/srv/a", "/srv/a/b"] })).toBe(
      "<HOME> and <HOME>",
    );
  });

  it("leaves ordinary words and short codes alone", () => {
    const text = "OUTPUT_INVALID exit 3: role planner, status ready";
    expect(normalise(text)).toBe(text);
  });
});
