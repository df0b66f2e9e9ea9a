import type { CheckResult } from "@united-workforce/protocol";
import { sanitizeTerminalText } from "@united-workforce/util";

/** One line per check (`✓ name: detail`), a failed one followed by what to do. */
export function renderChecks(checks: readonly CheckResult[]): string {
  return checks
    .map((check) => {
      const line = `${check.ok ? "✓" : "✗"} ${check.name}: ${check.detail}`;
      return sanitizeTerminalText(check.hint && !check.ok ? `${line}\n    ${check.hint}` : line);
    })
    .join("\n");
}
