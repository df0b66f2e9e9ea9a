import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const BOOT = new URL("./boot.cjs", import.meta.url).pathname;
const { commandKey, save, wrap } = createRequire(import.meta.url)(BOOT) as {
  commandKey(argv: string[], words: number): string;
  save(
    file: string,
    build: string,
    data: Buffer,
    options?: { fs?: typeof fs; now?: number; maxBytes?: number },
  ): void;
  wrap(code: string): string;
};

/** A file as bundle.mjs writes it: the build line, then the body as a CommonJS module function. */
function built(build: string, body: string): string {
  return `// uwf-bundle ${build}\n${wrap(body)}`;
}

/** A binary laid out like a built package: bin → dist/bundle/boot.cjs → main.cjs. */
function fakeBinary(
  build: string,
  root = mkdtempSync(join(tmpdir(), "uwf-boot-")),
): { bin: string; bundle: string } {
  const bundle = join(root, "dist", "bundle");
  mkdirSync(bundle, { recursive: true });
  copyFileSync(BOOT, join(bundle, "boot.cjs"));
  // Exits with the code argv asks for; prints what `require` and `module` it was given work.
  writeFileSync(
    join(bundle, "main.cjs"),
    built(
      build,
      'const path = require("node:path");\n' +
        "module.exports.ran = true;\n" +
        'process.stdout.write(path.basename(__filename) + "\\n");\n' +
        "process.exitCode = Number(process.argv.at(-1)) || 0;\n",
    ),
  );
  const bin = join(root, "bin.cjs");
  writeFileSync(bin, 'require("./dist/bundle/boot.cjs").boot("fake", 2);\n');
  return { bin, bundle };
}

function run(bin: string, home: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH, UWF_HOME: home, ...env },
    encoding: "utf8",
  });
}

const cacheFiles = (home: string): string[] => {
  const dir = join(home, "cache", "code", "fake");
  return existsSync(dir) ? readdirSync(dir) : [];
};

describe("boot: the compiled-code cache", () => {
  it("runs the bundle, and after a run that exits 0 keeps its compiled code, private", () => {
    const { bin } = fakeBinary("00000000000000aa");
    const home = mkdtempSync(join(tmpdir(), "uwf-boot-home-"));
    const first = run(bin, home, ["cas", "get", "0"]);
    expect(first.status).toBe(0);
    expect(first.stdout).toBe("main.cjs\n");
    const [file] = cacheFiles(home);
    expect(file).toBe(`00000000000000aa-cas-get-${process.version}-${process.arch}.bin`);
    const path = join(home, "cache", "code", "fake", file!);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "cache", "code")).mode & 0o777).toBe(0o700);

    // V8 takes the cache: the second run does not write it again.
    const written = statSync(path).mtimeMs;
    expect(run(bin, home, ["cas", "get", "0"]).status).toBe(0);
    expect(statSync(path).mtimeMs).toBe(written);
  });

  it("writes nothing after a failed run, or with UWF_CODE_CACHE=0", () => {
    const { bin } = fakeBinary("00000000000000bb");
    const home = mkdtempSync(join(tmpdir(), "uwf-boot-home-"));
    expect(run(bin, home, ["thread", "show", "3"]).status).toBe(3);
    expect(run(bin, home, ["thread", "show", "0"], { UWF_CODE_CACHE: "0" }).status).toBe(0);
    expect(cacheFiles(home)).toEqual([]);
  });

  it("replaces a damaged cache file and still runs", () => {
    const { bin } = fakeBinary("00000000000000cc");
    const home = mkdtempSync(join(tmpdir(), "uwf-boot-home-"));
    expect(run(bin, home, ["cas", "get", "0"]).status).toBe(0);
    const path = join(home, "cache", "code", "fake", cacheFiles(home)[0]!);
    writeFileSync(path, "not V8 code at all");
    const again = run(bin, home, ["cas", "get", "0"]);
    expect(again.status).toBe(0);
    expect(again.stdout).toBe("main.cjs\n");
    expect(statSync(path).size).toBeGreaterThan("not V8 code at all".length);
  });

  it("drops other builds' caches a day old when it writes one for a new build", () => {
    const home = mkdtempSync(join(tmpdir(), "uwf-boot-home-"));
    const old = fakeBinary("00000000000000dd");
    expect(run(old.bin, home, ["cas", "get", "0"]).status).toBe(0);
    expect(run(old.bin, home, ["cas", "has", "0"]).status).toBe(0);
    expect(cacheFiles(home)).toHaveLength(2);
    // A fresh one stays: another install sharing this home may still be using it.
    const dayOld = (Date.now() - 86_400_000 - 60_000) / 1000;
    const [first] = cacheFiles(home);
    utimesSync(join(home, "cache", "code", "fake", first!), dayOld, dayOld);
    const next = fakeBinary("00000000000000ee");
    expect(run(next.bin, home, ["cas", "get", "0"]).status).toBe(0);
    const left = cacheFiles(home);
    expect(left).not.toContain(first);
    expect(left.map((name) => name.slice(0, 16)).sort()).toEqual([
      "00000000000000dd",
      "00000000000000ee",
    ]);
  });

  it("loads a chunk beside the bundle with a code cache of its own, kept apart", () => {
    const { bin, bundle } = fakeBinary("0000000000000a11");
    writeFileSync(
      join(bundle, "main.cjs"),
      built(
        "0000000000000a11",
        'const extra = require("./boot.cjs").loadChunk("extra");\n' +
          'process.stdout.write(extra.greeting + " from " + extra.file + "\\n");\n',
      ),
    );
    writeFileSync(
      join(bundle, "extra.cjs"),
      built(
        "0000000000000b22",
        'module.exports = { greeting: "hi", file: require("node:path").basename(__filename) };\n',
      ),
    );
    const home = mkdtempSync(join(tmpdir(), "uwf-boot-home-"));
    const first = run(bin, home, ["cas", "get", "0"]);
    expect(first.stdout).toBe("hi from extra.cjs\n");
    const chunkDir = join(home, "cache", "code", "fake.extra");
    const [file] = readdirSync(chunkDir);
    expect(file).toBe(`0000000000000b22-main-${process.version}-${process.arch}.bin`);
    const written = statSync(join(chunkDir, file!)).mtimeMs;
    expect(run(bin, home, ["cas", "get", "0"]).stdout).toBe("hi from extra.cjs\n");
    expect(statSync(join(chunkDir, file!)).mtimeMs).toBe(written);
    // The bundle's own cache is in the binary's folder, as before.
    expect(cacheFiles(home)).toEqual([
      `0000000000000a11-cas-get-${process.version}-${process.arch}.bin`,
    ]);
  });

  it("runs a package installed beside the binary from its own bundle, with a code cache of its own", () => {
    // As a global install lays them out: lib/node_modules/@fake/{cli,backend}.
    const modules = join(mkdtempSync(join(tmpdir(), "uwf-boot-global-")), "node_modules");
    const { bin, bundle } = fakeBinary("0000000000000d44", join(modules, "@fake", "cli"));
    writeFileSync(
      join(bundle, "main.cjs"),
      built(
        "0000000000000d44",
        'require("./boot.cjs").importPackage("@fake/backend").then((backend) => {\n' +
          '  process.stdout.write(backend.greeting + " from " + backend.file + "\\n");\n' +
          "});\n",
      ),
    );
    const backend = join(modules, "@fake", "backend");
    mkdirSync(join(backend, "dist"), { recursive: true });
    writeFileSync(
      join(backend, "package.json"),
      JSON.stringify({
        name: "@fake/backend",
        exports: { ".": "./dist/index.js", "./bundle": "./dist/bundle.cjs" },
      }),
    );
    writeFileSync(
      join(backend, "dist", "bundle.cjs"),
      built(
        "0000000000000e55",
        'module.exports = { greeting: "hi", file: require("node:path").basename(__filename) };\n',
      ),
    );
    const home = mkdtempSync(join(tmpdir(), "uwf-boot-home-"));
    expect(run(bin, home, ["cas", "get", "0"]).stdout).toBe("hi from bundle.cjs\n");
    expect(readdirSync(join(home, "cache", "code", "fake.backend"))).toEqual([
      `0000000000000e55-main-${process.version}-${process.arch}.bin`,
    ]);
  });

  it("rejects with Node's MODULE_NOT_FOUND, naming it, a package not installed beside it", () => {
    const { bin, bundle } = fakeBinary("0000000000000f66");
    writeFileSync(
      join(bundle, "main.cjs"),
      built(
        "0000000000000f66",
        'require("./boot.cjs").importPackage("@fake/absent").catch((error) => {\n' +
          '  process.stdout.write(error.code + ": " + error.message.split("\\n")[0] + "\\n");\n' +
          "});\n",
      ),
    );
    const home = mkdtempSync(join(tmpdir(), "uwf-boot-home-"));
    expect(run(bin, home, ["cas", "get", "0"]).stdout).toBe(
      "MODULE_NOT_FOUND: Cannot find module '@fake/absent/bundle'\n",
    );
  });

  it("refuses a chunk name that could leave the bundle's folder", () => {
    const { bin, bundle } = fakeBinary("0000000000000c33");
    writeFileSync(
      join(bundle, "main.cjs"),
      built("0000000000000c33", 'require("./boot.cjs").loadChunk("../main");\n'),
    );
    const home = mkdtempSync(join(tmpdir(), "uwf-boot-home-"));
    const failed = run(bin, home, ["cas", "get", "0"]);
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toContain('not a chunk name: "../main"');
  });

  it("refuses a Node without process.getBuiltinModule, saying which one it needs", () => {
    const { bin } = fakeBinary("00000000000000ff");
    const home = mkdtempSync(join(tmpdir(), "uwf-boot-home-"));
    // As Node 20.15 and older are: no process.getBuiltinModule.
    const older = join(home, "older-node.cjs");
    writeFileSync(older, "delete process.getBuiltinModule;\n");
    const child = spawnSync(process.execPath, ["-r", older, bin, "cas", "get", "0"], {
      env: { PATH: process.env.PATH, UWF_HOME: home },
      encoding: "utf8",
    });
    expect(child.status).toBe(1);
    expect(child.stdout).toBe("");
    expect(child.stderr).toBe(
      `fake: needs Node.js 20.16 or later, and this is ${process.version}. Install a newer Node.js (https://nodejs.org) and run it again.\n`,
    );
    expect(cacheFiles(home)).toEqual([]);
  });

  it("runs a bundle without a build line, caching nothing", () => {
    const { bin, bundle } = fakeBinary("00000000000000ff");
    writeFileSync(join(bundle, "main.cjs"), 'process.stdout.write("plain\\n");\n');
    const home = mkdtempSync(join(tmpdir(), "uwf-boot-home-"));
    expect(execFileSync(process.execPath, [bin], { env: { UWF_HOME: home } }).toString()).toBe(
      "plain\n",
    );
    expect(cacheFiles(home)).toEqual([]);
  });
});

describe("boot: the code cache stays in bounds", () => {
  const HOUR = 3_600_000;
  const MIB = 1024 * 1024;
  const code = Buffer.alloc(1000, 7);
  /** A `cache/code/<binary>` folder and the file a build's cache is written to there. */
  function cacheFile(build = "00000000000000aa"): { root: string; dir: string; file: string } {
    const root = join(mkdtempSync(join(tmpdir(), "uwf-boot-home-")), "cache", "code");
    const dir = join(root, "fake");
    return { root, dir, file: join(dir, `${build}-cas-get-v20-x64.bin`) };
  }
  /** Real fs, except that writing a temp file fills the disk after a few bytes. */
  const fullDisk = {
    ...fs,
    writeFileSync(path: string, data: Buffer, options?: fs.WriteFileOptions) {
      if (!String(path).endsWith(".tmp")) return fs.writeFileSync(path, data, options);
      fs.writeFileSync(path, data.subarray(0, 10), options);
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    },
  } as typeof fs;

  it("on a full disk leaves no partial file, and writes no cache for an hour", () => {
    const { root, dir, file } = cacheFile();
    const now = Date.now();
    save(file, "00000000000000aa", code, { fs: fullDisk, now });
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(root)).toEqual(["fake", "off-disk-full"]);

    save(file, "00000000000000aa", code, { now: now + HOUR - 60_000 });
    expect(readdirSync(dir)).toEqual([]);
    save(file, "00000000000000aa", code, { now: now + HOUR + 60_000 });
    expect(readdirSync(dir)).toEqual([`00000000000000aa-cas-get-v20-x64.bin`]);
  });

  it("writes nothing that would leave less than 64 MiB of the disk free", () => {
    const { dir, file } = cacheFile();
    const free = (bytes: number) =>
      ({
        ...fs,
        statfsSync: () => ({ bavail: bytes / 4096, bsize: 4096 }),
      }) as unknown as typeof fs;
    save(file, "00000000000000aa", code, { fs: free(64 * MIB) });
    expect(readdirSync(dir)).toEqual([]);
    save(file, "00000000000000aa", code, { fs: free(65 * MIB) });
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it("drops temp files a killed process left, then the oldest caches beyond its bound", () => {
    const { root, dir, file } = cacheFile();
    const other = join(root, "fake.yaml");
    mkdirSync(dir, { recursive: true });
    mkdirSync(other);
    const now = Date.now();
    const at = (path: string, size: number, ageMs: number) => {
      writeFileSync(path, Buffer.alloc(size));
      const seconds = (now - ageMs) / 1000;
      utimesSync(path, seconds, seconds);
    };
    at(join(dir, "00000000000000aa-thread-exec-v20-x64.bin.123.tmp"), 10, 11 * 60_000);
    at(join(dir, "00000000000000aa-thread-show-v20-x64.bin.456.tmp"), 10, 1_000);
    at(join(other, "0000000000000b22-main-v20-x64.bin"), 1000, 3 * HOUR);
    at(join(dir, "00000000000000aa-thread-exec-v20-x64.bin"), 1000, 2 * HOUR);
    at(join(dir, "00000000000000aa-thread-show-v20-x64.bin"), 1000, HOUR);

    save(file, "00000000000000aa", code, { now, maxBytes: 2100 });
    // The fresh temp file may be another process's write in progress: it stays.
    expect(readdirSync(dir).sort()).toEqual([
      "00000000000000aa-cas-get-v20-x64.bin",
      "00000000000000aa-thread-show-v20-x64.bin",
      "00000000000000aa-thread-show-v20-x64.bin.456.tmp",
    ]);
    expect(readdirSync(other)).toEqual([]);
  });
});

describe("boot: which command a cache is for", () => {
  it("names the command words, help and version, skipping options and --format's value", () => {
    expect(commandKey(["thread", "exec", "01ABC", "-c", "3"], 2)).toBe("thread-exec");
    expect(commandKey(["--format", "json", "cas", "get", "X"], 2)).toBe("cas-get");
    expect(commandKey(["thread", "show", "--help"], 2)).toBe("thread-show-help");
    expect(commandKey(["--help"], 2)).toBe("main-help");
    expect(commandKey(["--thread", "T", "--role", "r"], 0)).toBe("main");
    expect(commandKey(["--version"], 0)).toBe("main-version");
  });

  it("keeps words that could not be a file name out of the key", () => {
    expect(commandKey(["../../etc", "passwd"], 2)).toBe("main");
    expect(commandKey(["Thread", "exec"], 2)).toBe("main");
    expect(commandKey(["x".repeat(40)], 2)).toBe("main");
  });
});
