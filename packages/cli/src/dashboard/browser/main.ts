/**
 * The dashboard's only script: the live feed over server-sent events (the thread list's rows, a
 * thread's page), focus for in-page links, no double submit of an answer, a running step's
 * elapsed time. Pages work without it,
 * minus the live updates. scripts/lib/dashboard-assets.mjs bundles it for the browser (ES2020).
 */
import { guardAnswerForms } from "./answer-form.js";
import { tickElapsed } from "./elapsed.js";
import { focusLinkTargets } from "./focus.js";
import { followThreadList } from "./thread-list.js";
import { followThreadPage } from "./thread-page.js";

const live = document.body.getAttribute("data-live");
if (live && window.EventSource) {
  if (live === "*") followThreadList();
  else followThreadPage(live);
}
focusLinkTargets();
guardAnswerForms();
tickElapsed();
