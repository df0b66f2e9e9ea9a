import type { AgentContext, ChatMessage } from "@united-workforce/agent-kit";

/** A conversation longer than this (JSON characters) is not resumed: the history carries it. */
export const MAX_RESUMED_CHARS = 200_000;

/**
 * The conversation this role had on its previous visit, to continue on this one. The model
 * keeps no state, so uwf-builtin keeps the conversation in the step's detail
 * (`conversation`); agent-kit offers the session (same adapter, same cwd) with the detail of
 * the step that last used it. Null — start afresh, the prompt's history says what happened —
 * when there is no session, that detail holds another session, or the conversation is too
 * long to send again.
 */
export function previousConversation(
  ctx: AgentContext,
): { sessionId: string; messages: ChatMessage[] } | null {
  const session = ctx.resumeSession;
  if (!session?.detail) return null;
  const { sessionId, conversation } = session.detail;
  if (sessionId !== session.sessionId || !isConversation(conversation)) return null;
  if (JSON.stringify(conversation).length > MAX_RESUMED_CHARS) {
    ctx.progress(
      `not resuming session ${sessionId}: its conversation is over ${MAX_RESUMED_CHARS} characters; the prompt's history carries what happened`,
    );
    return null;
  }
  return { sessionId, messages: conversation.filter((message) => message.role !== "system") };
}

function isConversation(value: unknown): value is ChatMessage[] {
  return (
    Array.isArray(value) &&
    value.every(
      (message) =>
        typeof message === "object" &&
        message !== null &&
        ["system", "user", "assistant", "tool"].includes((message as ChatMessage).role),
    )
  );
}
