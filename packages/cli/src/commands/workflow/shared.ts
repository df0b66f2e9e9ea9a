import type { WorkflowDocument, WorkflowPayload } from "@united-workforce/protocol";

export function workflowDocument(
  hash: string,
  payload: WorkflowPayload,
  extra: { warnings?: string[]; source?: string } = {},
): WorkflowDocument {
  return {
    name: payload.name,
    hash,
    description: payload.description ?? null,
    roles: Object.keys(payload.roles),
    warnings: extra.warnings ?? [],
    ...(extra.source === undefined ? {} : { source: extra.source }),
  };
}

export function warningLines(warnings: readonly string[]): string[] {
  return warnings.map((w) => `warning: ${w}`);
}
