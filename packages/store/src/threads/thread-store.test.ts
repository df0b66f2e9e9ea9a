import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ThreadPointer } from "@united-workforce/protocol";
import { isUwfError, newUlid } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ThreadStore } from "./thread-store.js";

let home: string;
let store: ThreadStore;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-threads-"));
  store = new ThreadStore(home);
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function pointer(overrides: Partial<ThreadPointer> = {}): ThreadPointer {
  return {
    thread: newUlid(),
    workflow: "solve-issue",
    workflowHash: "0000000000001",
    start: "0000000000002",
    head: "0000000000002",
    status: "idle",
    currentRole: null,
    suspended: null,
    steps: 0,
    cwd: "/work",
    createdAt: "2025-01-01T00:00:00.000Z",
    updatedAt: "2025-01-01T00:00:00.000Z",
    ...overrides,
  };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isUwfError(error) ? error.code : "not a UwfError";
  }
  return undefined;
}

describe("ThreadStore", () => {
  it("writes and reads a pointer atomically, leaving no temp file", () => {
    const p = pointer({
      status: "suspended",
      suspended: { role: "coder", reason: "which branch?", kind: "question" },
    });
    store.write(p);
    expect(store.read(p.thread)).toEqual(p);
    expect(store.exists(p.thread)).toBe(true);
    store.write({ ...p, head: "0000000000003", steps: 1 });
    expect(store.read(p.thread).head).toBe("0000000000003");
    expect(readdirSync(join(home, "threads"))).toEqual([`${p.thread}.json`]);
  });

  it("refuses a malformed id before touching a path", () => {
    expect(codeOf(() => store.read("../../etc/passwd"))).toBe("USAGE");
    expect(codeOf(() => store.write(pointer({ thread: "../x" })))).toBe("USAGE");
    expect(store.exists("../x")).toBe(false);
  });

  it("reports a missing thread with a hint", () => {
    const id = newUlid();
    try {
      store.read(id);
      expect.unreachable();
    } catch (error) {
      expect(isUwfError(error) && [error.code, error.hint]).toEqual([
        "THREAD_NOT_FOUND",
        "`uwf thread list` shows the threads",
      ]);
    }
  });

  it("names the file of a corrupt pointer", () => {
    const id = newUlid();
    mkdirSync(store.dir);
    writeFileSync(store.file(id), JSON.stringify({ ...pointer({ thread: id }), head: "nope" }));
    expect(() => store.read(id)).toThrow(
      `${store.file(id)}: \`head\` is missing or not a CAS hash`,
    );
    expect(codeOf(() => store.read(id))).toBe("THREAD_CORRUPT");
  });

  it("lists oldest first, with a problem instead of a crash for bad files", () => {
    const a = pointer();
    const b = pointer();
    store.write(b);
    store.write(a);
    const bad = newUlid();
    writeFileSync(store.file(bad), "");
    const wrongName = newUlid();
    writeFileSync(store.file(wrongName), JSON.stringify(pointer()));
    writeFileSync(join(store.dir, "README.txt"), "not a thread");
    writeFileSync(join(store.dir, ".tmp-1-2-3"), "{");

    const items = store.list();
    expect(items.map((item) => item.id)).toEqual([a.thread, b.thread, bad, wrongName]);
    expect(items[0]).toEqual({ id: a.thread, pointer: a, problem: null });
    expect(items[2]).toEqual({ id: bad, pointer: null, problem: "the file is empty" });
    expect(items[3]?.problem).toMatch(/^it names thread/);
  });

  // How fast this is, is measured by `pnpm bench` ("uwf thread list over 10,000 threads").
  it("lists 10,000 threads, each once, oldest first", () => {
    mkdirSync(store.dir);
    const base = pointer();
    const ids: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const id = newUlid();
      ids.push(id);
      writeFileSync(store.file(id), JSON.stringify({ ...base, thread: id }, null, 2));
    }
    const items = store.list();
    expect(items.map((item) => item.id)).toEqual(ids.sort());
    expect(items.every((item) => item.problem === null && item.pointer?.thread === item.id)).toBe(
      true,
    );
  });

  it("lists nothing when the folder does not exist", () => {
    expect(store.list()).toEqual([]);
  });
});
