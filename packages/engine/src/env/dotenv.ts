// `.env` is read by util, so that an adapter's start (agent-kit) reads it without loading the
// engine (DESIGN §14); the engine's own names stay.
export { addHomeDotenv, readHomeDotenv } from "@united-workforce/util";
