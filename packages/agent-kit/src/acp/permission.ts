/** How the client answers an agent's `session/request_permission`. */
export type PermissionPolicy = "allow" | "deny";

export const PERMISSION_POLICIES: readonly PermissionPolicy[] = ["allow", "deny"];

export interface PermissionOption {
  optionId: string;
  name?: string;
  kind?: string;
}

/** The answer to one permission request, as sent and as reported. */
export interface PermissionDecision {
  /** The tool call's title as the agent gave it. */
  title: string;
  kind: string | null;
  decision: "allowed" | "denied";
  /** The option picked, or null when none fitted and the request was answered `cancelled`. */
  optionId: string | null;
}

// Once before always: the answer must not outlive this step in the agent's own settings.
const ALLOW_KINDS = ["allow_once", "allow_always"];
const REJECT_KINDS = ["reject_once", "reject_always"];

/**
 * The option the policy picks: `allow` takes an allow option, `deny` a reject option. With no
 * such option the request is answered `cancelled` (`optionId` null), which agents treat as a
 * refusal, so `allow` never picks a reject by accident, nor `deny` an allow.
 */
export function choosePermission(
  policy: PermissionPolicy,
  options: PermissionOption[],
): string | null {
  for (const kind of policy === "allow" ? ALLOW_KINDS : REJECT_KINDS) {
    const option = options.find((candidate) => candidate.kind === kind);
    if (option) return option.optionId;
  }
  return null;
}
