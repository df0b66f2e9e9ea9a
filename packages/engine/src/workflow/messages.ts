/**
 * Validation messages users and tests rely on, word for word (DESIGN §5). Every other message
 * is written where it is raised.
 */

export const UNDERSCORE_STATUS =
  'status key "_" is no longer valid: use explicit statuses (see uwf prompt workflow-authoring)';

export const START_STATUSES_REQUIRED = '$START must have edges with statuses "new" and "resume"';

export function unknownTargetRole(source: string, status: string, target: string): string {
  return `edge ${source}→${status}: unknown target role "${target}"`;
}

export function unreachableRole(role: string): string {
  return `role "${role}" is not reachable from $START`;
}

export function missingStatusKeys(role: string, statuses: readonly string[]): string {
  return `role "${role}" graph is missing status keys: ${statuses.join(", ")}`;
}

export function undeclaredStatusKeys(role: string, statuses: readonly string[]): string {
  return `role "${role}" graph has status keys its frontmatter does not declare in "$status": ${statuses.join(", ")}`;
}

export function templateVariableNotFound(
  field: "prompt" | "location",
  variable: string,
  source: string,
  status: string,
): string {
  return `${field} variable "${variable}" in graph[${source}][${status}] not found in role "${source}" frontmatter`;
}

export function nameMismatch(
  file: string,
  implied: string,
  declared: string,
  rename: { what: "file" | "folder"; to: string },
): string {
  return `workflow name mismatch: file "${file}" implies name "${implied}" but YAML declares name "${declared}". Either rename the ${rename.what} to "${rename.to}" or change the YAML \`name\` field to "${implied}"`;
}

export function cannotReachEnd(role: string): string {
  return `role "${role}" can never reach $END: every path from it loops or suspends`;
}

export function frontmatterNotCompilable(role: string, reason: string): string {
  return `role "${role}" frontmatter is not a valid JSON Schema: ${reason}`;
}
