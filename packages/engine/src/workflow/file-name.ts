import { basename, dirname, extname } from "node:path";
import { nameMismatch } from "./messages.js";

/** `x.yaml` implies the name `x`; `x/index.yaml` implies the folder's name. */
function impliedWorkflowName(fileName: string): {
  implied: string;
  shown: string;
  isIndex: boolean;
} {
  const file = basename(fileName);
  const extension = extname(file);
  if (/^index\.(ya?ml|json)$/i.test(file)) {
    const folder = basename(dirname(fileName));
    return { implied: folder, shown: `${folder}/${file}`, isIndex: true };
  }
  return { implied: file.slice(0, file.length - extension.length), shown: file, isIndex: false };
}

/** The error when a file's name does not imply the workflow's declared name, else null. */
export function checkFileName(fileName: string, declared: string): string | null {
  const { implied, shown, isIndex } = impliedWorkflowName(fileName);
  if (implied === declared) return null;
  const rename = isIndex
    ? { what: "folder" as const, to: declared }
    : { what: "file" as const, to: `${declared}${extname(fileName)}` };
  return nameMismatch(shown, implied, declared, rename);
}
