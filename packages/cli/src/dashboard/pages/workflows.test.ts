import { describe, expect, it } from "vitest";
import { triggersSection } from "./workflows.js";

describe("a workflow page's triggers", () => {
  it("lists the GitHub events, the inputs taken from them and the key, escaped", () => {
    const text = String(
      triggersSection({
        events: ["issues.opened", "issue_comment.created"],
        inputs: { issue: "{{{event.issue.number}}}" },
        key: "{{{event.repository.full_name}}}#<n>",
      }),
    );
    expect(text).toContain("Started by");
    expect(text).toContain("issues.opened");
    expect(text).toContain("issue_comment.created");
    expect(text).toContain("{{{event.issue.number}}}");
    expect(text).toContain("#&lt;n&gt;");
  });

  it("names the default key, and is absent for a workflow no event starts", () => {
    expect(String(triggersSection({ events: ["push"] }))).toContain("the delivery id");
    expect(triggersSection(undefined)).toBe("");
  });
});
