/**
 * The layer rule, enforced: adapters -> agent/render -> core -> i18n, one way (i18n, the message
 * catalogues, imports nothing: every room may read it), and the rooms inside agent (models and
 * profile never import the engine). Reads every source file and fails when a folder imports what it
 * must not. Beside it: test/boundary/cycles.test.ts (no import circles) and
 * test/boundary/thread-ids.test.ts (only the platform ports parse thread ids).
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { filesUnder, type ImportRef, importsOf, root, shown, src, targetOf } from "./boundary/source.ts";

/** The src folder a relative import lands in (core, agent, render, adapters, or "" for src root). */
function layerOf(fromFile: string, specifier: string): string {
	const target = targetOf(fromFile, specifier);
	return target.startsWith("..") ? "outside" : (target.split("/")[0] ?? "");
}

/** True when a relative import lands in the engine: src/agent/engine or the tutor that runs it. */
function isEngine(fromFile: string, specifier: string): boolean {
	const target = targetOf(fromFile, specifier);
	return target.startsWith("agent/engine/") || target === "agent/tutor.ts";
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
	// Learner-supplied material: pure reading and indexing on core, with PDF.js (no engine, no store, no SDK).
	material: {
		layers: ["core", "material", "i18n"],
		packages: (r) => r.specifier.startsWith("pdfjs-dist/") || r.specifier.startsWith("node:"),
	},
	agent: {
		layers: ["core", "agent", "material", "i18n"],
		packages: (r) =>
			!["discord.js", "@slack/bolt", "puppeteer", "@mermaid-js/mermaid-cli"].includes(packageName(r.specifier)),
	},
	// The admins' web dashboard: node:http and its own pages over core and agent's public surface; no npm package.
	dashboard: { layers: ["core", "agent", "i18n", "dashboard"], packages: () => false },
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
			for (const file of filesUnder(dir)) {
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
						if (!rule.targets(targetOf(file, ref.specifier))) violations.push(where);
					} else if (!ref.specifier.startsWith("node:") && !rule.packages(packageName(ref.specifier)))
						violations.push(where);
				}
			}
			expect(violations).toEqual([]);
		});
	}

	// Rooms of agent that the engine uses and that never reach into it: a model speaks the engine's contract
	// (core/contracts/side-calls.ts); the profile reads finished records and the pure transcript readers
	// (core/transcript.ts), and judges review answers with core's answer-resolve.ts and the grader (agent/grader.ts).
	for (const room of ["models", "profile"]) {
		it(`src/agent/${room} never imports the engine`, () => {
			const violations = filesUnder(join(src, "agent", room)).flatMap((file) =>
				importsOf(readFileSync(file, "utf8"))
					.filter((ref) => ref.specifier.startsWith(".") && isEngine(file, ref.specifier))
					.map((ref) => `${shown(file)} imports ${ref.specifier}`),
			);
			expect(violations).toEqual([]);
		});
	}

	it("src/dashboard reads agent through its public surface only, and only the composition root imports it", () => {
		const violations: string[] = [];
		for (const file of filesUnder(join(src, "dashboard")))
			for (const ref of importsOf(readFileSync(file, "utf8"))) {
				const target = ref.specifier.startsWith(".") ? targetOf(file, ref.specifier) : "";
				if (target.startsWith("agent/") && target !== "agent/index.ts")
					violations.push(`${shown(file)} imports ${ref.specifier}`);
			}
		for (const file of filesUnder(src)) {
			if (shown(file).startsWith("src/dashboard/") || shown(file).startsWith("src/cli/")) continue;
			for (const ref of importsOf(readFileSync(file, "utf8")))
				if (ref.specifier.startsWith(".") && targetOf(file, ref.specifier).startsWith("dashboard/"))
					violations.push(`${shown(file)} imports ${ref.specifier}`);
		}
		expect(violations).toEqual([]);
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
		expect(isEngine(join(src, "agent", "models", "demo-model.ts"), "../engine/admit.ts")).toBe(true);
		expect(isEngine(join(src, "agent", "profile", "learning.ts"), "../tutor.ts")).toBe(true);
		expect(isEngine(join(src, "agent", "profile", "learning.ts"), "../store/types.ts")).toBe(false);
	});
});
