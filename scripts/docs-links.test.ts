import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Relative links in the README and docs/ must lead somewhere: a renamed or deleted page, or a
// heading reworded, breaks them silently on GitHub. Links to other sites are not followed.
const root = resolve(fileURLToPath(new URL("..", import.meta.url)));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(dir, name));
}

/** The text outside fenced code blocks and inline code spans, where a link is a link. */
function proseOf(markdown: string): string {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "")
    .replace(/(`+)[\s\S]*?\1/g, (span) => " ".repeat(span.length));
}

/** Every inline link and image target, as written: `[text](target "title")`. */
function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of proseOf(markdown).matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)[^)]*\)/g)) {
    targets.push(match[1]!.replace(/^<|>$/g, ""));
  }
  return targets;
}

/** GitHub's anchor for a heading: its text, lower-cased, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a page offers: one per heading (repeats numbered as GitHub does) and `<a id>`s. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const match of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const match of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

/** What is wrong with one link from `file`, or null when it resolves. */
function brokenLink(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null;
  const [path = "", anchor] = target.split("#", 2);
  const destination = path === "" ? file : resolve(dirname(file), decodeURI(path));
  if (!existsSync(destination)) return "no such file";
  if (anchor === undefined || anchor === "") return null;
  if (statSync(destination).isDirectory() || !destination.endsWith(".md")) return null;
  const anchors = anchorsOf(readFileSync(destination, "utf8"));
  return anchors.has(decodeURIComponent(anchor)) ? null : `no heading #${anchor}`;
}

describe("docs links", () => {
  const files = [join(root, "README.md"), ...markdownFiles(join(root, "docs"))];

  it("finds the pages and their links", () => {
    expect(files.length).toBeGreaterThan(5);
    const links = files.flatMap((file) => linkTargets(readFileSync(file, "utf8")));
    expect(links.filter((target) => !target.includes(":")).length).toBeGreaterThan(50);
  });

  it("has no broken relative link or anchor in README.md and docs/", () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const target of linkTargets(readFileSync(file, "utf8"))) {
        const problem = brokenLink(file, target);
        if (problem !== null) broken.push(`${relative(root, file)}: ${target} (${problem})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("reads anchors as GitHub makes them", () => {
    expect(slug("Declaring exits: `$status`")).toBe("declaring-exits-status");
    expect(slug("Reserved names: `$START`, `$END`, `$SUSPEND`")).toBe(
      "reserved-names-start-end-suspend",
    );
    expect(slug("`!include`")).toBe("include");
    expect(slug("A thread's cost as a lower bound")).toBe("a-threads-cost-as-a-lower-bound");
    expect([...anchorsOf("# A\n## B\n```\n# not a heading\n```\n## B\n")]).toEqual([
      "a",
      "b",
      "b-1",
    ]);
  });

  it("reports a missing page and a missing heading", () => {
    const readme = join(root, "README.md");
    expect(brokenLink(readme, "docs/no-such-page.md")).toBe("no such file");
    expect(brokenLink(readme, "docs/decisions/README.md#no-such-heading")).toBe(
      "no heading #no-such-heading",
    );
    expect(brokenLink(readme, "docs/decisions/README.md#engine-and-runs")).toBeNull();
    expect(brokenLink(readme, "https://example.com/missing.md")).toBeNull();
  });
});
