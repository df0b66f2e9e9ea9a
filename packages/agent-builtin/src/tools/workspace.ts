import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ToolError } from "./tool-error.js";

/** Symbolic links followed for one path before giving up, as the kernel's ELOOP limit. */
const MAX_LINK_HOPS = 40;

/**
 * The step's working directory, the only place the tools may reach. Every path a model gives
 * is resolved to its real path — following every symbolic link, including a dangling one and
 * the parents of a file that does not exist yet — and refused unless it stays inside the real
 * path of the directory. Relative paths resolve against the directory.
 */
export class Workspace {
  /** The real path of the working directory. */
  readonly root: string;

  constructor(cwd: string) {
    this.root = realpathSync(cwd);
  }

  /** The real path `requested` names, inside the root, or a ToolError saying why not. */
  resolve(requested: unknown, what = "path"): string {
    if (typeof requested !== "string" || requested.trim() === "") {
      throw new ToolError(`"${what}" must be a non-empty string`);
    }
    if (requested.includes("\0")) throw new ToolError(`"${what}" must not contain a NUL byte`);
    const candidate = resolve(this.root, requested);
    let real: string;
    try {
      real = realPathOf(candidate, 0);
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw new ToolError(`cannot resolve "${requested}": ${(error as Error).message}`);
    }
    if (!this.contains(real)) {
      const via = real === candidate ? "" : ` (it resolves to ${real})`;
      throw new ToolError(
        `"${requested}" is outside the working directory ${this.root}${via}: tools may only touch files under it`,
      );
    }
    return real;
  }

  /** A real path as the model should see it: relative to the root, `.` for the root. */
  display(real: string): string {
    const rel = relative(this.root, real);
    return rel === "" ? "." : rel.split(sep).join("/");
  }

  contains(real: string): boolean {
    const rel = relative(this.root, real);
    return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
  }
}

/**
 * `realpath` that also works for paths that do not exist (yet): the real path of the deepest
 * existing ancestor, plus the rest. A dangling symbolic link is followed to where it points,
 * since writing through it would create its target.
 */
function realPathOf(path: string, hops: number): string {
  if (hops > MAX_LINK_HOPS) throw new ToolError(`too many symbolic links in ${path}`);
  try {
    return realpathSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
  const parent = dirname(path);
  if (parent === path) return path;
  const realParent = realPathOf(parent, hops);
  const here = join(realParent, basename(path));
  let isLink = false;
  try {
    isLink = lstatSync(here).isSymbolicLink();
  } catch {
    return here;
  }
  if (!isLink) return here;
  return realPathOf(resolve(realParent, readlinkSync(here)), hops + 1);
}
