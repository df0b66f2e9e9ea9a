/**
 * The answer form sends once: a second submit (a double click, Enter pressed twice) is dropped
 * while the first is on its way. Called again after the thread page is refreshed in place.
 */
export function guardAnswerForms(): void {
  for (const form of document.querySelectorAll<HTMLFormElement>("form.answer")) {
    form.addEventListener("submit", (ev) => {
      const button = form.querySelector("button")!;
      if (button.disabled) {
        ev.preventDefault();
        return;
      }
      button.disabled = true;
      button.textContent = "Sending…";
    });
  }
}
