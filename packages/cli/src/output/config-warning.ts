import { docsUrl } from "@united-workforce/util";
/** A config warning as every command prints it on stderr, naming the key and the file. */
export function configWarning(warning: string, file: string): string {
  return `warning: ${warning} in ${file} (uwf ignores it: check the spelling, see ${docsUrl("config.md")})\n`;
}
