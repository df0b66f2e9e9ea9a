import type { AgentContext, ChatMessage } from "@united-workforce/agent-kit";
import type { StepPayload } from "@united-workforce/protocol";
import { openStore, readConfig, storeOptionsFrom } from "@united-workforce/store";

/** A conversation longer than this (JSON characters) is not resumed: the history carries it. */
export const MAX_RESUMED_CHARS = 200_000;

/**
 * The conversation this role had on its previous visit, to continue on this one. The model
 * keeps no state, so uwf-builtin keeps the conversation in the step's detail
 * (`conversation`); agent-kit offers the session (same adapter, same cwd), and the role's
 * previous step is the `own` entry of the prompt's history. Null — start afresh, the prompt's
 * history says what happened — when there is no session, the history no longer reaches the
 * step, the step holds another session, or the conversation is too long to send again.
 */
export async function previousConversation(
  ctx: AgentContext,
): Promise<{ sessionId: string; messages: ChatMessage[] } | null> {
  const session = ctx.resumeSession;
  if (!session) return null;
  const own = ctx.history.find((entry) => entry.own && entry.role === ctx.role);
  if (!own) return null;
  const store = await openStore(storeOptionsFrom(ctx.home, readConfig(ctx.home), ctx.env));
  let detail: unknown;
  try {
    const step = await store.cas.getPayload<StepPayload>(own.hash, "step");
    detail = (await store.cas.get(step.detail)).payload;
  } finally {
    await store.close();
  }
  if (typeof detail !== "object" || detail === null) return null;
  const { sessionId, conversation } = detail as { sessionId?: unknown; conversation?: unknown };
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
