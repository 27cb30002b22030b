/**
 * The layer rule, enforced: adapters -> agent/render -> core -> i18n, one way (i18n, the message
 * catalogues, imports nothing: every room may read it).
 * Reads every source file and fails when a folder imports what it must not.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

interface ImportRef {
	specifier: string;
	typeOnly: boolean;
}

function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith(".ts") ? [path] : [];
	});
}

/** Static imports, re-exports and dynamic imports of a file. */
function importsOf(code: string): ImportRef[] {
	const refs: ImportRef[] = [];
	const statics = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+["']([^"']+)["']/gm;
	for (const m of code.matchAll(statics)) refs.push({ specifier: m[3]!, typeOnly: m[2] !== undefined });
	for (const m of code.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) refs.push({ specifier: m[1]!, typeOnly: false });
	for (const m of code.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)) refs.push({ specifier: m[1]!, typeOnly: false });
	return refs;
}

/** The src folder a relative import lands in (core, agent, render, adapters, or "" for src root). */
function layerOf(fromFile: string, specifier: string): string {
	const target = relative(src, resolve(dirname(fromFile), specifier));
	return target.startsWith("..") ? "outside" : (target.split("/")[0] ?? "");
}

/** True when a relative import lands in src/agent/engine. */
function isEngine(fromFile: string, specifier: string): boolean {
	return relative(src, resolve(dirname(fromFile), specifier)).startsWith("agent/engine/");
}

const packageName = (specifier: string) =>
	specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] ?? "");

interface Rule {
	layers: string[];
	packages: (ref: ImportRef) => boolean;
}

const rules: Record<string, Rule> = {
	i18n: { layers: ["i18n"], packages: () => false },
	core: {
		layers: ["core", "i18n"],
		packages: (r) =>
			["typebox", "zod", "mathjs"].includes(packageName(r.specifier)) || (r.specifier === "ai" && r.typeOnly),
	},
	agent: {
		layers: ["core", "agent", "i18n"],
		packages: (r) =>
			!["discord.js", "@slack/bolt", "puppeteer", "@mermaid-js/mermaid-cli"].includes(packageName(r.specifier)),
	},
	render: {
		layers: ["core", "render", "i18n"],
		packages: (r) => {
			const pkg = packageName(r.specifier);
			if (["discord-api-types", "@slack/types"].includes(pkg)) return r.typeOnly || pkg === "discord-api-types";
			return (
				!["discord.js", "@slack/bolt", "ai", "keyv"].includes(pkg) &&
				!pkg.startsWith("@keyv/") &&
				!pkg.startsWith("@ai-sdk/")
			);
		},
	},
};

describe("layer boundaries", () => {
	for (const [layer, rule] of Object.entries(rules)) {
		it(`src/${layer} imports only what its layer may`, () => {
			const dir = join(src, layer);
			const violations: string[] = [];
			for (const file of statSafe(dir) ? filesUnder(dir) : []) {
				for (const ref of importsOf(readFileSync(file, "utf8"))) {
					const where = `${relative(root, file)} imports ${ref.specifier}`;
					if (ref.specifier.startsWith(".")) {
						if (!rule.layers.includes(layerOf(file, ref.specifier))) violations.push(where);
					} else if (!ref.specifier.startsWith("node:") || layer === "core" || layer === "i18n") {
						if (!rule.packages(ref)) violations.push(where);
					}
				}
			}
			expect(violations).toEqual([]);
		});
	}

	// Adapters: a platform adapter is transport. It imports its own folder, the lesson controller (and its
	// port), render's and agent's public surfaces and core's contracts; only it imports its platform's SDK.
	// The controller imports no platform SDK and no platform adapter.
	const SDKS: Record<string, string[]> = {
		discord: ["discord.js"],
		slack: ["@slack/bolt", "@slack/types"],
		terminal: [],
	};
	const allSdks = Object.values(SDKS).flat();
	const adapterRules: Record<string, { targets: (target: string) => boolean; packages: (pkg: string) => boolean }> = {
		lesson: {
			targets: (t) =>
				t.startsWith("adapters/lesson/") ||
				t.startsWith("core/") ||
				t.startsWith("i18n/") ||
				t === "render/index.ts" ||
				t === "agent/index.ts",
			packages: (pkg) => !allSdks.includes(pkg) && pkg !== "keyv" && pkg !== "ai",
		},
		...Object.fromEntries(
			Object.entries(SDKS).map(([platform, sdks]) => [
				platform,
				{
					targets: (t: string) =>
						t.startsWith(`adapters/${platform}/`) ||
						t.startsWith("adapters/lesson/") ||
						t.startsWith("core/contracts/") ||
						t.startsWith("i18n/") ||
						t === "render/index.ts" ||
						t === "agent/index.ts",
					packages: (pkg: string) => sdks.includes(pkg) || (!allSdks.includes(pkg) && pkg !== "keyv" && pkg !== "ai"),
				},
			]),
		),
	};
	for (const [folder, rule] of Object.entries(adapterRules)) {
		it(`src/adapters/${folder} imports only what ${folder === "lesson" ? "the controller" : "a platform adapter"} may`, () => {
			const violations: string[] = [];
			for (const file of filesUnder(join(src, "adapters", folder))) {
				for (const ref of importsOf(readFileSync(file, "utf8"))) {
					const where = `${relative(root, file)} imports ${ref.specifier}`;
					if (ref.specifier.startsWith(".")) {
						if (!rule.targets(relative(src, resolve(dirname(file), ref.specifier)))) violations.push(where);
					} else if (!ref.specifier.startsWith("node:") && !rule.packages(packageName(ref.specifier)))
						violations.push(where);
				}
			}
			expect(violations).toEqual([]);
		});
	}

	// A model speaks the engine's contract (core/contracts/side-calls.ts), never its private files.
	it("src/agent/models never imports the engine", () => {
		const violations = filesUnder(join(src, "agent", "models")).flatMap((file) =>
			importsOf(readFileSync(file, "utf8"))
				.filter((ref) => ref.specifier.startsWith(".") && isEngine(file, ref.specifier))
				.map((ref) => `${relative(root, file)} imports ${ref.specifier}`),
		);
		expect(violations).toEqual([]);
		expect(isEngine(join(src, "agent", "models", "demo-model.ts"), "../engine/grader.ts")).toBe(true);
	});

	it("the import reader sees every import form (so the rule above can fail)", () => {
		const code = [
			'import { a } from "discord.js";',
			'import type { B } from "ai";',
			'export { c } from "../agent/x.ts";',
			'import "side-effect";',
			'const d = await import("@slack/bolt");',
		].join("\n");
		expect(importsOf(code)).toEqual([
			{ specifier: "discord.js", typeOnly: false },
			{ specifier: "ai", typeOnly: true },
			{ specifier: "../agent/x.ts", typeOnly: false },
			{ specifier: "side-effect", typeOnly: false },
			{ specifier: "@slack/bolt", typeOnly: false },
		]);
		expect(rules.core!.packages({ specifier: "ai", typeOnly: false })).toBe(false);
		expect(rules.core!.packages({ specifier: "node:fs", typeOnly: false })).toBe(false);
		expect(rules.i18n!.packages({ specifier: "zod", typeOnly: true })).toBe(false);
		expect(rules.i18n!.layers).toEqual(["i18n"]);
		expect(adapterRules.slack!.packages("discord.js")).toBe(false);
		expect(adapterRules.lesson!.packages("@slack/bolt")).toBe(false);
		expect(adapterRules.discord!.targets("agent/store/keyv.ts")).toBe(false);
		expect(adapterRules.discord!.targets("adapters/slack/port.ts")).toBe(false);
	});
});

function statSafe(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}
