/**
 * A tool call that cannot be done (a path outside the working directory, a missing file, an
 * ambiguous edit). Its message goes back to the model as the tool's result, so the model can
 * correct itself; it never ends the run.
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}
