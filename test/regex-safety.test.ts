/**
 * No regex in src/ can backtrack super-linearly on the text it sees: every regex literal (and every
 * `RegExp(...)` whose pattern is a string literal) goes through the ReDoS analyser recheck; an exponential,
 * polynomial or undecided verdict fails unless test/regex-allow.ts lets it through behind a cap on its input
 * (the cap's code must be in the file). Regexes built at run time are listed there with why they are linear.
 * Offline and deterministic: recheck's native binary, fixed seed, step limits instead of time limits.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ALLOWED_REGEXES, DYNAMIC_REGEXES } from "./regex-allow.ts";
import { type FoundRegex, regexesIn, regexesUnder, reviewRegexes } from "./regex-scan.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const readSource = (file: string): string => {
	const path = join(root, file);
	return existsSync(path) ? readFileSync(path, "utf8") : "";
};
const at = (source: string, flags = ""): FoundRegex => ({ file: "src/x.ts", line: 1, source, flags });

describe("the ReDoS check itself", () => {
	it("finds literals and RegExp calls with literal patterns, and reports the ones built at run time", () => {
		const code = [
			"const a = /^(a|a)*$/u;",
			'const b = new RegExp("x+y", "g");',
			"const c = RegExp(String.raw`\\d+`);",
			// biome-ignore lint/suspicious/noTemplateCurlyInString: source code quoted as text
			"const d = new RegExp(`^${name}$`);",
			"const e = a / b / c; // division, not a regex",
		].join("\n");
		const { found, dynamic } = regexesIn(code, "src/x.ts");
		expect(found.map((r) => [r.line, r.source, r.flags])).toEqual([
			[1, "^(a|a)*$", "u"],
			[2, "x+y", "g"],
			[3, "\\d+", ""],
		]);
		// biome-ignore lint/suspicious/noTemplateCurlyInString: source code quoted as text
		expect(dynamic).toEqual([{ file: "src/x.ts", line: 4, text: "new RegExp(`^${name}$`)" }]);
	});

	it("flags exponential and polynomial regexes, and passes linear ones", async () => {
		const review = await reviewRegexes([at("^(a|a)*$"), at("^\\s*\\s*$"), at("[.!?]+$"), at("^:?-+:?$")], [], () => "");
		expect(review.problems).toHaveLength(3);
		expect(review.problems[0]).toMatch(/^src\/x\.ts:1 \/\^\(a\|a\)\*\$\/: exponential backtracking/);
		expect(review.problems[1]).toMatch(/polynomial backtracking/);
		expect(review.problems[2]).toMatch(/polynomial backtracking/);
		expect(review.allowed).toEqual([]);
	});

	it("lets a flagged regex through only with an entry whose cap is in the code, and fails stale entries", async () => {
		const entry = {
			file: "src/x.ts",
			source: "^(a|a)*$",
			flags: "",
			maxInput: 20,
			capCode: "text.slice(0, 20)",
			reason: "a test",
		};
		const capped = await reviewRegexes([at("^(a|a)*$")], [entry], () => "const t = text.slice(0, 20);");
		expect(capped.problems).toEqual([]);
		expect(capped.allowed.map((a) => a.entry)).toEqual([entry]);
		const uncapped = await reviewRegexes([at("^(a|a)*$")], [entry], () => "const t = text;");
		expect(uncapped.problems).toEqual([expect.stringMatching(/the cap it cites .* is not in src\/x\.ts/)]);
		const stale = await reviewRegexes([at("^a*$")], [{ ...entry, source: "^a*$" }], () => "text.slice(0, 20)");
		expect(stale.problems).toEqual([expect.stringMatching(/is allowed, but recheck finds it .*: drop the entry/)]);
		const orphan = await reviewRegexes([], [entry], () => "");
		expect(orphan.problems).toEqual([expect.stringMatching(/matches no regex in the source/)]);
	});
});

describe("regexes in src/", () => {
	const { found, dynamic } = regexesUnder(root, join(root, "src"));

	it("each is linear, or allowed behind a cap on its input", { timeout: 300_000 }, async () => {
		expect(found.length).toBeGreaterThan(100);
		const started = performance.now();
		const review = await reviewRegexes(found, ALLOWED_REGEXES, readSource);
		const seconds = ((performance.now() - started) / 1000).toFixed(1);
		const lines = [`regex check: ${review.checked} regexes in src/ checked by recheck in ${seconds} s`];
		lines.push(`allowed although super-linear (${review.allowed.length}):`);
		for (const { regex, entry, verdict } of review.allowed)
			lines.push(
				`  ${regex.file}:${regex.line} /${regex.source}/${regex.flags} (${verdict.kind === "vulnerable" ? verdict.complexity : "undecided"}): input at most ${entry.maxInput} characters, capped by ${JSON.stringify(entry.capCode)} in ${entry.capFile ?? entry.file}; ${entry.reason}`,
			);
		lines.push(`built at run time, not checked (${dynamic.length}):`);
		for (const d of dynamic) lines.push(`  ${d.file}:${d.line} ${d.text}`);
		console.log(lines.join("\n"));
		expect(review.problems).toEqual([]);
	});

	it("each built at run time is listed with why its pattern is linear", () => {
		const listed = (d: { file: string; text: string }) =>
			DYNAMIC_REGEXES.some((n) => n.file === d.file && n.code === d.text && n.reason.trim() !== "");
		expect(dynamic.filter((d) => !listed(d))).toEqual([]);
		const built = (n: { file: string; code: string }) => dynamic.some((d) => d.file === n.file && d.text === n.code);
		expect(DYNAMIC_REGEXES.filter((n) => !built(n))).toEqual([]);
	});
});
