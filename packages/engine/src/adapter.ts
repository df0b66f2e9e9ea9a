// What an adapter's toolkit (agent-kit) needs of the engine, apart from the rest: a role's
// exits (its statuses and each one's fields) and the task's text. An adapter's process loads
// this entry alone, not the runner, the history functions or the workflow loader.
export { renderTask } from "./history/transcript.js";
export { GUIDANCE_HEADING, splitGuidance } from "./threads/guidance-block.js";
export { type ExitOutput, type RoleExits, requireRoleExits } from "./workflow/role-exits.js";
export type { SchemaMap } from "./workflow/schema-shape.js";
