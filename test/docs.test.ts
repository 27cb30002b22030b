/** The README and docs stay true to the repository: links resolve, every variable is documented. */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { configTable } from "../src/config/variables.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

describe("README and docs", () => {
	it("shows both quick-start commands, and .ci/run runs the test one", () => {
		const readme = read("README.md");
		expect(readme).toContain("npm run setup && npm start");
		expect(readme).toContain("npm run setup && npm test");
		expect(read(".ci/run")).toContain("npm run setup && npm test");
	});

	it("links only to files that exist", () => {
		for (const doc of [
			"README.md",
			"docs/architecture.md",
			"docs/engine.md",
			"docs/render.md",
			"docs/discord.md",
			"docs/slack.md",
			"docs/evaluation.md",
		]) {
			const links = [...read(doc).matchAll(/\]\((?!https?:|#|mailto:)([^)\s#]+)/g)].map((m) => m[1]!);
			for (const link of links) expect(existsSync(join(root, dirname(doc), link)), `${doc} -> ${link}`).toBe(true);
		}
	});

	it("names every npm script it tells the reader to run", () => {
		const scripts = Object.keys((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts);
		for (const m of read("README.md").matchAll(/npm run ([a-z:]+)/g)) expect(scripts).toContain(m[1]);
	});

	it(".env.example lists every configuration variable", () => {
		const example = read(".env.example");
		for (const { name } of configTable()) expect(example).toContain(`# ${name}=`);
	});
});
