import { execFileSync, spawn } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { outputFile, outputStream } from "./output-file.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "uwf-output-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const refusal = (fn: () => unknown): { code: string; message: string; hint: string } => {
  try {
    fn();
  } catch (error) {
    return error as { code: string; message: string; hint: string };
  }
  throw new Error("not refused");
};

describe("outputFile: what -o writes to", () => {
  it("creates a new file private to its owner", () => {
    const file = join(dir, "new.txt");
    expect(outputFile(file, { force: false })("hello\n")).toBe("created");
    expect(readFileSync(file, "utf8")).toBe("hello\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("replaces a regular file only with --force, and through a link replaces the file it names", () => {
    const file = join(dir, "old.txt");
    writeFileSync(file, "old");
    expect(refusal(() => outputFile(file, { force: false }))).toMatchObject({
      code: "USAGE",
      message: `${file} exists; nothing was written`,
    });
    const link = join(dir, "link.txt");
    symlinkSync(file, link);
    expect(outputFile(link, { force: true })("new")).toBe("replaced");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(file, "utf8")).toBe("new");
  });

  it("refuses a directory, a socket and a link to nothing, before any work", async () => {
    const sub = join(dir, "sub");
    mkdirSync(sub);
    expect(refusal(() => outputFile(sub, { force: true }))).toMatchObject({
      code: "USAGE",
      message: `${sub} is a directory, not a regular file; nothing was written`,
      hint: "choose a file path with -o",
    });
    const dangling = join(dir, "dangling");
    symlinkSync(join(dir, "nowhere"), dangling);
    expect(refusal(() => outputFile(dangling, { force: true })).message).toBe(
      `${dangling} is a symbolic link to nothing; nothing was written`,
    );
    const socket = join(dir, "s.sock");
    const server = createServer();
    await new Promise<void>((done) => server.listen(socket, done));
    try {
      expect(refusal(() => outputFile(socket, { force: true })).message).toBe(
        `${socket} is a socket, not a regular file; nothing was written`,
      );
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it("writes into a FIFO, which stays a FIFO", async () => {
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    const reader = spawn("cat", [fifo]);
    let read = "";
    reader.stdout.on("data", (chunk) => {
      read += chunk;
    });
    const closed = new Promise((done) => reader.on("close", done));
    expect(outputFile(fifo, { force: false })("through the pipe\n")).toBe("written-into");
    await closed;
    expect(read).toBe("through the pipe\n");
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it("writes into /dev/null, with or without --force, and it stays a character device", () => {
    expect(outputFile("/dev/null", { force: true })("gone")).toBe("written-into");
    expect(outputFile("/dev/null", { force: false })("gone")).toBe("written-into");
    expect(lstatSync("/dev/null").isCharacterDevice()).toBe(true);
  });
});

describe("outputStream: -o for output written piece by piece", () => {
  it("makes a new or replaced file appear whole at its end, private to its owner", () => {
    const file = join(dir, "bundle");
    const out = outputStream(file, { force: false });
    out.write("one\n");
    out.write("two\n");
    expect(() => lstatSync(file)).toThrow();
    expect(out.end()).toEqual({ bytes: 8, how: "created" });
    expect(readFileSync(file, "utf8")).toBe("one\ntwo\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = outputStream(file, { force: true });
    again.write("three\n");
    expect(again.end().how).toBe("replaced");
    expect(readFileSync(file, "utf8")).toBe("three\n");
  });

  it("leaves nothing when abandoned, and the file it would replace as it was", () => {
    const file = join(dir, "kept");
    writeFileSync(file, "before\n");
    const out = outputStream(file, { force: true });
    out.write("half");
    out.abandon();
    expect(readFileSync(file, "utf8")).toBe("before\n");
    expect(readdirSync(dir)).toEqual(["kept"]);
  });

  it("writes into a device, and refuses what -o refuses before anything is written", () => {
    const out = outputStream("/dev/null", { force: false });
    out.write("gone\n");
    expect(out.end()).toEqual({ bytes: 5, how: "written-into" });
    const file = join(dir, "exists");
    writeFileSync(file, "x");
    expect(refusal(() => outputStream(file, { force: false })).code).toBe("USAGE");
    expect(refusal(() => outputStream(dir, { force: true })).code).toBe("USAGE");
  });
});
