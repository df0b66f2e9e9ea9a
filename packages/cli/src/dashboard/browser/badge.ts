/** A thread's status badge, as the server renders it. */
export function setBadge(el: Element | null, status: string): void {
  if (!el) return;
  el.className = `badge s-${status}`;
  el.textContent = status;
}

/** A cost as the server renders it: 4 decimals under a dollar, 2 from one. */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "unknown";
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}
