export * from "./check.js";
export * from "./command-line.js";
export * from "./config.js";
export * from "./file.js";
export * from "./keys.js";
export * from "./resolve-agent.js";
export * from "./resolve-model.js";
