export * from "./config-schema.js";
export * from "./document-schemas.js";
export * from "./documents.js";
export * from "./exit-codes.js";
export * from "./from-schema.js";
export * from "./nodes.js";
export * from "./reserved.js";
export * from "./threads.js";
