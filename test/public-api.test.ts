/**
 * The AI SDK on its public, versioned entry points only: no source under src imports
 * `ai/internal` (undocumented, free to change in any patch release, which would force an
 * exact pin of `ai`) or the test helpers of `ai/test`.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function sourcesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? sourcesUnder(path) : /\.(ts|mts|js|mjs)$/.test(name) ? [path] : [];
	});
}

describe("the AI SDK's public API only", () => {
	it("no file under src mentions ai/internal or imports ai/test", () => {
		const files = sourcesUnder(join(root, "src"));
		expect(files.length).toBeGreaterThan(50);
		const offenders = files
			.filter((file) => {
				const code = readFileSync(file, "utf8");
				return code.includes("ai/internal") || /["']ai\/test["']/.test(code);
			})
			.map((file) => relative(root, file));
		expect(offenders).toEqual([]);
	});

	it("package.json takes the AI SDK packages by caret range, so patch releases apply", () => {
		const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
			dependencies: Record<string, string>;
		};
		for (const name of ["ai", "@ai-sdk/openai", "@ai-sdk/anthropic", "@ai-sdk/google", "@ai-sdk/provider"])
			expect(pkg.dependencies[name]).toMatch(/^\^\d+\.\d+\.\d+$/);
	});
});
