import { readFileSync } from "node:fs";

// The bundler defines this; unbundled runs (tests) read the package's own package.json.
declare const __UWF_VERSION__: string | undefined;

export const VERSION: string =
  typeof __UWF_VERSION__ === "string"
    ? __UWF_VERSION__
    : (
        JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
          version: string;
        }
      ).version;
