import { addUsage, emptyUsage, type Usage } from "@united-workforce/protocol";

/**
 * Add up usage over attempts. A field stays null until some attempt reports it: unknown is not
 * zero.
 */
export function sumUsage(parts: (Partial<Usage> | undefined)[]): Usage {
  return parts.reduce<Usage>((total, part) => (part ? addUsage(total, part) : total), emptyUsage());
}
