import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { isPlainObject } from "@united-workforce/protocol";
import { RPC_INTERNAL_ERROR, RPC_INVALID_PARAMS, RpcError } from "./json-rpc.js";

/**
 * `fs/read_text_file` and `fs/write_text_file` for an agent, confined to one directory (the
 * session's cwd). Paths are checked by their real paths, so a symlink inside the directory that
 * points out of it is refused like `../` is.
 */
export class ConfinedFs {
  private readonly root: string;

  constructor(root: string) {
    this.root = realpathSync(root);
  }

  read(params: unknown): { content: string } {
    const { path, line, limit } = readParams(params);
    const real = this.locate(path);
    let content: string;
    try {
      content = readFileSync(real, "utf8");
    } catch (error) {
      throw new RpcError(RPC_INTERNAL_ERROR, `cannot read ${path}: ${(error as Error).message}`);
    }
    if (line === undefined && limit === undefined) return { content };
    const lines = content.split("\n");
    const from = Math.max(0, (line ?? 1) - 1);
    return {
      content: lines.slice(from, limit === undefined ? undefined : from + limit).join("\n"),
    };
  }

  write(params: unknown): null {
    const p = isPlainObject(params) ? params : {};
    const path = absolutePath(p.path);
    if (typeof p.content !== "string") {
      throw new RpcError(RPC_INVALID_PARAMS, "fs/write_text_file needs a string `content`");
    }
    const target = this.locate(path);
    try {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, p.content);
    } catch (error) {
      throw new RpcError(RPC_INTERNAL_ERROR, `cannot write ${path}: ${(error as Error).message}`);
    }
    return null;
  }

  /**
   * Where `path` really is: the real path of its nearest existing ancestor plus the rest, which
   * must lie inside the root. A dangling symlink is refused: writing through it would land
   * wherever it points.
   */
  private locate(path: string): string {
    let existing = path;
    while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
    const target = resolve(this.inside(path, realpathOrFail(existing)), relative(existing, path));
    this.inside(path, target);
    if (isSymlink(target)) {
      throw new RpcError(RPC_INVALID_PARAMS, `${path} is a symbolic link that points nowhere`);
    }
    return target;
  }

  private inside(asked: string, real: string): string {
    if (real === this.root || real.startsWith(this.root + sep)) return real;
    throw new RpcError(
      RPC_INVALID_PARAMS,
      `${asked} is outside the step's working directory ${this.root}; uwf lets the agent use files only inside it`,
    );
  }
}

function readParams(params: unknown): { path: string; line?: number; limit?: number } {
  const p = isPlainObject(params) ? params : {};
  const path = absolutePath(p.path);
  const line = wholeNumber(p.line, "line");
  const limit = wholeNumber(p.limit, "limit");
  return {
    path,
    ...(line === undefined ? {} : { line }),
    ...(limit === undefined ? {} : { limit }),
  };
}

function absolutePath(value: unknown): string {
  if (typeof value !== "string" || !isAbsolute(value) || value.includes("\0")) {
    throw new RpcError(
      RPC_INVALID_PARAMS,
      `the path must be absolute, got ${JSON.stringify(value)}`,
    );
  }
  return resolve(value);
}

function wholeNumber(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new RpcError(RPC_INVALID_PARAMS, `\`${name}\` must be a whole number`);
  }
  return value;
}

function realpathOrFail(path: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    throw new RpcError(RPC_INTERNAL_ERROR, `cannot read ${path}: ${(error as Error).message}`);
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
