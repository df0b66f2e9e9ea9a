export { openPostgresParts, type PostgresParts, type PostgresPartsOptions } from "./open.js";
