export { mockAgent } from "./mock-agent.js";
export { renderAnswer } from "./render.js";
export { replayAgent } from "./replay-agent.js";
export { loadScenario, type MockAnswer, type MockScenario, type MockStep } from "./scenario.js";
