import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { validateWorkflow } from "./validate.js";

/** A workflow with a human gate and a script step; tests change one role key at a time. */
function gate(approver: string, tests: string): string {
  return `
name: gate
roles:
  writer:
    frontmatter:
      type: object
      properties: { $status: { const: done } }
      required: [$status]
  approver:
${approver}
    frontmatter:
      oneOf:
        - properties: { $status: { const: approved } }
          required: [$status]
        - properties: { $status: { const: rejected }, reason: { type: string } }
          required: [$status, reason]
  tests:
${tests}
    frontmatter:
      type: object
      properties: { $status: { enum: [passed, failed] } }
      required: [$status]
graph:
  $START:
    new: { role: writer, prompt: "Write." }
    resume: { role: writer, prompt: "Write again." }
  writer:
    done: { role: tests, prompt: "Test it." }
  tests:
    passed: { role: approver, prompt: "Approve?" }
    failed: { role: writer, prompt: "Fix it." }
  approver:
    approved: { role: $END, prompt: "Done." }
    rejected: { role: writer, prompt: "Fix: {{{reason}}}" }
`;
}

const HUMAN = "    agent: human";
const SCRIPT = "    run: [npm, test]\n    exitStatus: { 0: passed, default: failed }";

function errorsOf(approver: string, tests: string): string[] {
  return validateWorkflow(parse(gate(approver, tests))).errors;
}

describe("human and script roles", () => {
  test("a human gate and a script step are valid", () => {
    const result = validateWorkflow(parse(gate(HUMAN, SCRIPT)));
    expect(result.errors).toEqual([]);
    expect(result.definition?.roles.approver?.agent).toBe("human");
    expect(result.definition?.roles.tests?.run).toEqual(["npm", "test"]);
  });

  test("a shell command line is valid only with shell: true", () => {
    expect(errorsOf(HUMAN, '    run: "npm test | tee log"\n    shell: true')).toEqual([]);
    expect(errorsOf(HUMAN, '    run: "npm test"')).toEqual([
      'role "tests": "run" is a string, which only runs with a shell: write an argv list (run: [npm, test]) or set "shell: true" to run it with /bin/sh -c',
    ]);
    expect(errorsOf(HUMAN, "    run: [npm, test]\n    shell: true")).toEqual([
      'role "tests": "shell: true" needs "run" as one string (the shell command line), not a list',
    ]);
  });

  test("agent names only human; other agents are configuration", () => {
    expect(errorsOf("    agent: claude", SCRIPT)).toEqual([
      'role "approver": "agent" must be "human" (found "claude"); which agent runs the other roles is set in config.yaml or with --agent',
    ]);
  });

  test("a role is a human or a command, not both", () => {
    expect(errorsOf(`${HUMAN}\n    run: [echo]`, SCRIPT)).toContain(
      'role "approver": "agent: human" and "run" exclude each other: a role is answered by a human or runs a command',
    );
  });

  test("run must be a non-empty argv", () => {
    expect(errorsOf(HUMAN, "    run: []")).toEqual([
      'role "tests": "run" must name a command (an argv list)',
    ]);
    expect(errorsOf(HUMAN, "    run: [npm, 3]")).toEqual([
      'role "tests": "run" must be a list of strings (the command and its arguments)',
    ]);
    expect(errorsOf(HUMAN, "    run: { cmd: npm }")).toEqual([
      'role "tests": "run" must be a list of strings (the command and its arguments)',
    ]);
  });

  test("script options need run", () => {
    expect(errorsOf(HUMAN, "    timeoutSeconds: 5\n    exitStatus: { 0: passed }")).toEqual([
      'role "tests": "exitStatus" needs "run" (a command)',
      'role "tests": "timeoutSeconds" needs "run" (a command)',
    ]);
  });

  test("timeoutSeconds is a whole number of seconds", () => {
    expect(errorsOf(HUMAN, `${SCRIPT}\n    timeoutSeconds: 0.5`)).toEqual([
      'role "tests": "timeoutSeconds" must be a whole number of seconds, at least 1',
    ]);
  });

  test("exitStatus maps exit codes to declared statuses", () => {
    expect(
      errorsOf(
        HUMAN,
        "    run: [npm, test]\n    exitStatus: { 0: passed, 300: failed, x: failed }",
      ),
    ).toEqual([
      'role "tests": exitStatus key "300" must be an exit code from 0 to 255 or "default"',
      'role "tests": exitStatus key "x" must be an exit code from 0 to 255 or "default"',
    ]);
    expect(
      errorsOf(HUMAN, "    run: [npm, test]\n    exitStatus: { 0: passed, 1: broken }"),
    ).toEqual([
      'role "tests": exitStatus[1] is "broken", which its frontmatter does not declare in "$status" (declared: passed, failed)',
    ]);
  });

  test("unknown role keys list the new ones", () => {
    expect(errorsOf(`${HUMAN}\n    answeredBy: human`, SCRIPT)).toEqual([
      'role "approver": unknown key "answeredBy" (expected: description, goal, capabilities, procedure, output, frontmatter, agent, run, shell, exitStatus, timeoutSeconds, maxVisits, join)',
    ]);
  });
});
