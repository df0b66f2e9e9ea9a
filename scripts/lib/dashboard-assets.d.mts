export const ASSETS_MODULE: RegExp;

export interface DashboardAssets {
  script: string;
  style: string;
  /** Every file the two were built from. */
  inputs: string[];
}

export function buildDashboardAssets(): Promise<DashboardAssets>;

export function buildBrowserScript(entry: string): Promise<{ text: string; inputs: string[] }>;

export function assetsModule(assets: Pick<DashboardAssets, "script" | "style">): string;
