#!/usr/bin/env node
// A `notify:` command: uwf writes one notification (a JSON document) on its stdin; this appends
// it to the JSON Lines file named by its argument and says what happened on stderr. In
// config.yaml (the path is resolved against the folder uwf runs in; give it absolute to be sure):
//
//   notify:
//     - on: [waiting, failed, budget, completed]
//       command: [node, /path/to/uwf/examples/notify/append-to-file.mjs, /tmp/uwf-notifications.jsonl]
//
// Swap the append for what your team uses: `notify-send`, a mail, a chat API.
import { appendFileSync } from "node:fs";

const file = process.argv[2];
if (file === undefined) {
  console.error("usage: append-to-file.mjs <notifications.jsonl>");
  process.exitCode = 2;
} else {
  let text = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) text += chunk;
  const notification = JSON.parse(text);
  appendFileSync(file, `${JSON.stringify(notification)}\n`);
  const { event, thread, title, role, reason, link } = notification;
  const line = [`uwf: ${event}`, title ? `"${title}"` : thread, role && `at ${role}`, reason, link]
    .filter(Boolean)
    .join(" · ");
  console.error(line);
}
