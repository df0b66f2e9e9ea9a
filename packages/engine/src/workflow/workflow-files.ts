import { type Dirent, existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

// Where workflow files are found on disk, for resolve.ts: the file or folder a path names, and
// a name's file in the nearest `.workflows/` folder.

/** Folder names and file names that hold a project's workflows, in lookup order. */
export const WORKFLOWS_DIR = ".workflows";
const workflowFileCandidates = (name: string): string[] => [
  `${name}.yaml`,
  `${name}.yml`,
  join(name, "index.yaml"),
  join(name, "index.yml"),
];

/** The workflow file a path names: the file itself, or a folder's index.yaml|index.yml. */
export function workflowFileAt(path: string): string | null {
  if (!existsSync(path)) return null;
  if (!statSync(path).isDirectory()) return path;
  for (const index of ["index.yaml", "index.yml"]) {
    const candidate = join(path, index);
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/**
 * The nearest `.workflows/<name>.yaml|.yml` or `.workflows/<name>/index.yaml|.yml`, walking up
 * from `cwd` and stopping at the repository root; each `.workflows/` folder looked in is pushed
 * onto `searched`.
 */
export function findInWorkflowDirs(name: string, cwd: string, searched: string[]): string | null {
  let dir = resolve(cwd);
  for (;;) {
    const workflows = join(dir, WORKFLOWS_DIR);
    if (existsSync(workflows) && statSync(workflows).isDirectory()) {
      searched.push(workflows);
      for (const candidate of workflowFileCandidates(name)) {
        const path = join(workflows, candidate);
        if (existsSync(path) && statSync(path).isFile()) return path;
      }
    }
    const parent = dirname(dir);
    if (existsSync(join(dir, ".git")) || parent === dir) return null;
    dir = parent;
  }
}

/** The workflow names the `.workflows/` folders in `dirs` hold, for "did you mean". */
export function namesInWorkflowDirs(dirs: readonly string[]): string[] {
  const names: string[] = [];
  for (const dir of dirs) {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (workflowFileAt(join(dir, entry.name)) !== null) names.push(entry.name);
      } else if (/\.ya?ml$/.test(entry.name)) {
        names.push(entry.name.replace(/\.ya?ml$/, ""));
      }
    }
  }
  return names;
}
