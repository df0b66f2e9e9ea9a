/**
 * Markers the suite reads in the guides (invisible when the markdown is rendered):
 * `<!-- uwf:file NAME -->` before a fenced block the reader saves as NAME, and
 * `<!-- uwf:verify -->` before a shell block the reader runs to check their setup. The suite
 * saves the same files and runs the same blocks, so what the guides tell is what works.
 */
export function marker(what: string): string {
  return `<!-- uwf:${what} -->`;
}

/** A fenced code block; `body` without its final newline. */
export function fenced(language: string, body: string): string {
  return [`\`\`\`${language}`, body.replace(/\n$/, ""), "```"].join("\n");
}

/** A fenced block and what its marker says (`file draft-review.yaml`, `verify`). */
export interface MarkedBlock {
  marker: string;
  language: string;
  body: string;
}

/** Every fenced block right after a `<!-- uwf:… -->` marker, in order. */
export function markedBlocks(markdown: string): MarkedBlock[] {
  const blocks: MarkedBlock[] = [];
  const pattern = /^<!-- uwf:(.+?) -->\n```([\w-]*)\n([\s\S]*?)\n```$/gm;
  for (const [, marker, language, body] of markdown.matchAll(pattern)) {
    blocks.push({ marker: marker!, language: language!, body: `${body}\n` });
  }
  return blocks;
}

/** The body of the block saved as `name`; an error when the guide has none. */
export function fileBlock(markdown: string, name: string): string {
  const block = markedBlocks(markdown).find((b) => b.marker === `file ${name}`);
  if (!block) throw new Error(`the guide has no block marked "file ${name}"`);
  return block.body;
}
