export * from "./check.js";
export * from "./config.js";
export * from "./file.js";
export * from "./keys.js";
