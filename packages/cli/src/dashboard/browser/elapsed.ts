/**
 * A running step's elapsed time: every `[data-since]` element counts up from its ISO time, once
 * a second, so the page says how long the step has run without asking the server.
 */
export function tickElapsed(): void {
  const tick = () => {
    for (const el of document.querySelectorAll<HTMLElement>("[data-since]")) {
      const since = Date.parse(el.dataset.since ?? "");
      if (!Number.isNaN(since)) el.textContent = `running for ${spell(Date.now() - since)}`;
    }
  };
  tick();
  setInterval(tick, 1000);
}

function spell(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
