import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { validateWorkflow } from "./validate.js";

/** A fix/review loop; tests set the workflow's `maxSteps` and the fixer's `maxVisits`. */
function loop(maxSteps: string | null, maxVisits: string | null) {
  return validateWorkflow(
    parse(`
name: loop
${maxSteps === null ? "" : `maxSteps: ${maxSteps}`}
roles:
  fixer:
${maxVisits === null ? "" : `    maxVisits: ${maxVisits}`}
    frontmatter:
      type: object
      properties: { $status: { const: fixed } }
      required: [$status]
  reviewer:
    frontmatter:
      type: object
      properties: { $status: { enum: [approved, changes] } }
      required: [$status]
graph:
  $START:
    new: { role: fixer, prompt: "Fix it." }
    resume: { role: fixer, prompt: "Again." }
  fixer:
    fixed: { role: reviewer, prompt: "Review." }
  reviewer:
    approved: { role: $END, prompt: "Done." }
    changes: { role: fixer, prompt: "Change it." }
`),
  );
}

describe("guards in a workflow", () => {
  test("maxSteps and maxVisits are whole numbers of at least 1", () => {
    const ok = loop("20", "3");
    expect(ok.errors).toEqual([]);
    expect(ok.definition).toMatchObject({ maxSteps: 20, roles: { fixer: { maxVisits: 3 } } });
    expect(loop("0", null).errors).toEqual([
      '"maxSteps" must be a whole number of steps, at least 1 (found 0); the thread suspends before a step once its chain holds that many',
    ]);
    expect(loop("2.5", null).errors).toHaveLength(1);
    expect(loop(null, "many").errors).toEqual([
      'role "fixer": "maxVisits" must be a whole number of visits, at least 1 (found "many"); the thread suspends before the role\'s next step once it ran that many times',
    ]);
  });

  test("a maxVisits that maxSteps always reaches first is a warning", () => {
    const result = loop("4", "4");
    expect(result.valid).toBe(true);
    expect(result.warnings).toContain(
      'role "fixer": maxVisits 4 is not below the workflow\'s maxSteps 4, so maxSteps stops the thread first',
    );
    expect(loop("5", "4").warnings).toEqual([]);
  });
});
