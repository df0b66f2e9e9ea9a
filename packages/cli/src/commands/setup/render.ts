import type { CheckResult } from "@united-workforce/protocol";
import { sanitizeTerminalText } from "@united-workforce/util";

/**
 * One line per check (`✓ name: detail`); a failed one (`✗`) or a warning (`!`) is followed by
 * what to do.
 */
export function renderChecks(checks: readonly CheckResult[]): string {
  return checks
    .map((check) => {
      const mark = !check.ok ? "✗" : check.warning ? "!" : "✓";
      const line = `${mark} ${check.name}: ${check.detail}`;
      return sanitizeTerminalText(check.hint && mark !== "✓" ? `${line}\n    ${check.hint}` : line);
    })
    .join("\n");
}

/** The last line of `uwf doctor`: how many checks failed, or passed, and how many warn. */
export function checksSummary(checks: readonly CheckResult[]): string {
  const failures = checks.filter((c) => !c.ok).length;
  const warnings = checks.filter((c) => c.ok && c.warning).length;
  const warned = warnings > 0 ? `, ${warnings} with a warning` : "";
  return failures === 0
    ? `all ${checks.length} checks passed${warned}`
    : `${failures} of ${checks.length} checks failed${warned}`;
}
