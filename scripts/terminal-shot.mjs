#!/usr/bin/env node
// Renders a terminal capture with colours (`tmux capture-pane -e -p`) to a PNG, for the docs:
//   node scripts/terminal-shot.mjs docs/images/live-exec.ansi docs/images/live-exec.png
// Uses playwright-core with the system Chromium (CHROMIUM, default /usr/bin/chromium), as the
// dashboard's browser tests do. Handles the SGR codes uwf's progress writes: reset, bold, dim,
// the 8 foreground colours and default colours.
import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: node scripts/terminal-shot.mjs <capture.ansi> <out.png>");
  process.exit(2);
}
const COLOURS = [
  "#1e1e1e",
  "#e06c75",
  "#98c379",
  "#e5c07b",
  "#61afef",
  "#c678dd",
  "#56b6c2",
  "#dcdfe4",
];
const escapeHtml = (text) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

// biome-ignore lint/suspicious/noControlCharactersInRegex: an SGR code starts with ESC.
const SGR_SPLIT = /(\u001b\[[0-9;]*m)/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: an SGR code starts with ESC.
const SGR = /^\u001b\[([0-9;]*)m$/;

function toHtml(ansi) {
  let html = "";
  let style = { bold: false, dim: false, colour: null };
  const open = () => {
    const css = [
      style.bold ? "font-weight:bold" : "",
      style.dim ? "opacity:.6" : "",
      style.colour === null ? "" : `color:${COLOURS[style.colour]}`,
    ].filter(Boolean);
    return css.length === 0 ? "<span>" : `<span style="${css.join(";")}">`;
  };
  html += open();
  for (const part of ansi.split(SGR_SPLIT)) {
    const sgr = SGR.exec(part);
    if (!sgr) {
      html += escapeHtml(part);
      continue;
    }
    for (const code of (sgr[1] || "0").split(";").map(Number)) {
      if (code === 0) style = { bold: false, dim: false, colour: null };
      else if (code === 1) style.bold = true;
      else if (code === 2) style.dim = true;
      else if (code === 22) style = { ...style, bold: false, dim: false };
      else if (code >= 30 && code <= 37) style.colour = code - 30;
      else if (code === 39) style.colour = null;
    }
    html += `</span>${open()}`;
  }
  return `${html}</span>`;
}

const body = toHtml(readFileSync(input, "utf8").replace(/\n+$/, ""));
const page = `<!doctype html><meta charset="utf-8"><style>
body { margin: 0; background: #282c34; }
pre { margin: 0; padding: 16px 20px; color: #dcdfe4; font: 14px/1.45 "DejaVu Sans Mono", monospace; display: inline-block; }
</style><pre>${body}</pre>`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
});
try {
  const tab = await browser.newPage({
    viewport: { width: 1100, height: 200 },
    deviceScaleFactor: 2,
  });
  await tab.setContent(page);
  await tab.locator("pre").screenshot({ path: output });
} finally {
  await browser.close();
}
