import { DOCUMENT_SCHEMAS, type DocumentName } from "@united-workforce/protocol";
import {
  runUwf,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Scripts and coding agents parse these documents: their keys are a contract (DESIGN §13).
describe("--format json documents keep their documented shape", () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  let temp: TempHome;
  const uwf = (...args: string[]) => runUwf([...args, "--format", "json"], { home: temp.home });
  const uwfWithInput = (input: string, args: string[]) =>
    runUwf([...args, "--format", "json"], { home: temp.home, input });
  const seen = new Set<DocumentName>();

  async function check(
    name: DocumentName,
    args: string[],
    input?: string,
  ): Promise<Record<string, unknown>> {
    const result = input === undefined ? await uwf(...args) : await uwfWithInput(input, args);
    expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
    const doc = JSON.parse(result.stdout);
    const validate = ajv.compile(DOCUMENT_SCHEMAS[name]);
    expect(validate(doc), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    seen.add(name);
    return doc;
  }

  beforeAll(() => {
    temp = tempHome();
  });
  afterAll(() => temp.cleanup());

  it("for workflow, cas, thread and step commands", async () => {
    const added = await check("workflow add", ["workflow", "add", "examples/hello.yaml"]);
    await check("workflow show", ["workflow", "show", "hello"]);
    await check("workflow validate", ["workflow", "validate", "examples/solve-issue.yaml"]);
    await check("workflow list", ["workflow", "list"]);
    await check("workflow history", ["workflow", "history", "hello"]);

    const text = await check("cas put-text", ["cas", "put-text", "some text"]);
    await check("cas get", ["cas", "get", String(text.hash)]);
    await check("cas has", ["cas", "has", String(text.hash)]);
    await check("cas refs", ["cas", "refs", String(added.hash)]);
    await check("cas walk", ["cas", "walk", String(added.hash)]);
    await check("cas put", ["cas", "put", "--type", "schema"], '{"type":"string"}');

    const started = await check("thread start", ["thread", "start", "hello", "-p", "Greet Ada"]);
    const thread = String(started.thread);
    const scenario = writeScenario(temp.home, [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
    ]);
    await check("thread exec", [
      "thread",
      "exec",
      thread,
      "--agent",
      `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`,
    ]);
    await check("thread show", ["thread", "show", thread]);
    await check("thread list", ["thread", "list"]);
    const steps = await check("step list", ["step", "list", thread]);
    const first = (steps.steps as { hash: string }[])[0]!.hash;
    await check("step fork", ["step", "fork", first]);
    await check("cas verify", ["cas", "verify"]);
    await check("cas gc", ["cas", "gc"]);
    await check("workflow rm", ["workflow", "rm", "hello"]);
    expect([...seen].sort()).toEqual(
      (Object.keys(DOCUMENT_SCHEMAS) as DocumentName[])
        .filter((n) => n !== "error" && n !== "workflow rollback")
        .sort(),
    );
  });

  it("for errors, on stderr with a stable code", async () => {
    const result = await uwf("thread", "show", "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.stderr);
    const validate = ajv.compile(DOCUMENT_SCHEMAS.error);
    expect(validate(doc), ajv.errorsText(validate.errors)).toBe(true);
    expect(doc.error.code).toBe("THREAD_NOT_FOUND");
    expect(doc.error.hint).toContain("uwf thread list");
  });
});
