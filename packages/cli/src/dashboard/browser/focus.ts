/**
 * An in-page link (a graph's edge, a role) moves the keyboard focus to its target, not only the
 * scroll position, so the next Tab continues from there.
 */
export function focusLinkTargets(): void {
  window.addEventListener("hashchange", focusTarget);
}

function focusTarget(): void {
  if (!location.hash) return;
  const el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (el) {
    if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
    el.focus({ preventScroll: false });
  }
}
