import type { RaceColumn, RaceView } from "../data/races.js";
import { type Html, html } from "../html.js";
import { costFact, duration, statusBadge, tokens } from "./layout.js";

/** The thread's races, each one's forks side by side in columns (none: nothing at all). */
export function raceSection(thread: string, races: readonly RaceView[]): Html {
  if (races.length === 0) return html``;
  return html`<section aria-labelledby="races-h"><h2 id="races-h">Races</h2>${races.map((race) => raceBlock(thread, race))}</section>`;
}

function raceBlock(thread: string, race: RaceView): Html {
  const raced =
    race.of === thread
      ? html`this thread`
      : html`<a class="mono" href="/threads/${race.of}">${race.of}</a>`;
  return html`<div class="race" data-race="${race.race}"><p class="dim">Race <span class="mono">${race.race}</span> of ${raced} at step <a class="mono" href="/threads/${race.of}/steps/${race.at}">${race.at}</a>${
    race.promoted === null
      ? html` &middot; promote the fork to go on with: <code>uwf thread race promote &lt;fork&gt;</code>`
      : html` &middot; promoted <a class="mono" href="/threads/${race.promoted}">${race.promoted}</a>`
  }</p><div class="race-columns">${race.forks.map((fork) => forkColumn(thread, fork))}</div></div>`;
}

/** One fork: its agent, status and outcome, then its step's `$status`, figures and output. */
function forkColumn(thread: string, fork: RaceColumn): Html {
  const self = fork.thread === thread;
  const step = fork.step;
  const fields = step === null ? [] : Object.entries(step.output).filter(([k]) => k !== "$status");
  return html`<article class="race-fork o-${fork.outcome}" data-thread="${fork.thread}"${self ? html` aria-current="page"` : ""}><h3>${fork.agent}</h3>
<p>${self ? html`<b class="mono">${fork.thread}</b> (this thread)` : html`<a class="mono" href="/threads/${fork.thread}">${fork.thread}</a>`}</p>
<p>${statusBadge(fork.status)} <span class="badge outcome">${fork.outcome}</span></p>${
    step === null
      ? html`<p class="dim reason">${fork.reason ?? "no step yet"}</p>`
      : html`<p><span class="badge out">${step.status}</span> <a class="mono" href="/threads/${fork.thread}/steps/${step.hash}">${step.hash}</a></p>
<dl class="race-facts"><dt>Duration</dt><dd>${duration(step.durationMs)}</dd><dt>Tokens</dt><dd>${tokens(step.usage.inputTokens, step.usage.outputTokens)}</dd><dt>Cost</dt><dd>${costFact(step.usage.costUsd)}</dd></dl>${
          fields.length > 0
            ? html`<dl class="output">${fields.map(([key, value]) => html`<dt>${key}</dt><dd><span class="value">${typeof value === "string" ? value : JSON.stringify(value)}</span></dd>`)}</dl>`
            : ""
        }`
  }</article>`;
}
