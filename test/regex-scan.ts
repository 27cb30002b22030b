/**
 * Finds the regular expressions in the source (literals, and `RegExp(...)` / `new RegExp(...)` whose pattern is a
 * string literal) and asks the ReDoS analyser recheck whether each can backtrack super-linearly.
 * Used by test/regex-safety.test.ts.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { check, type Diagnostics } from "recheck";
import ts from "typescript";

/** One regular expression found in a source file. */
export interface FoundRegex {
	/** Path relative to the repository root, with forward slashes. */
	file: string;
	/** 1-based line of the expression. */
	line: number;
	source: string;
	flags: string;
}

/** A `RegExp(...)` call whose pattern is not a literal: it cannot be checked statically, so the test lists it. */
export interface DynamicRegex {
	file: string;
	line: number;
	text: string;
}

function filesUnder(dir: string): string[] {
	return readdirSync(dir)
		.sort()
		.flatMap((name) => {
			const path = join(dir, name);
			return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith(".ts") ? [path] : [];
		});
}

/** The text of a string literal or a template without substitutions (also `String.raw` without substitutions). */
function literalText(node: ts.Node, sf: ts.SourceFile): string | undefined {
	if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
	if (
		ts.isTaggedTemplateExpression(node) &&
		node.tag.getText(sf) === "String.raw" &&
		ts.isNoSubstitutionTemplateLiteral(node.template)
	)
		return node.template.rawText ?? node.template.text;
	return undefined;
}

/** Every regular expression in the code of one file (`file` names it in the results). */
export function regexesIn(code: string, file: string): { found: FoundRegex[]; dynamic: DynamicRegex[] } {
	const sf = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
	const found: FoundRegex[] = [];
	const dynamic: DynamicRegex[] = [];
	const lineOf = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
	const visit = (node: ts.Node): void => {
		if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
			const text = node.getText(sf);
			const end = text.lastIndexOf("/");
			found.push({ file, line: lineOf(node), source: text.slice(1, end), flags: text.slice(end + 1) });
		} else if (
			(ts.isNewExpression(node) || ts.isCallExpression(node)) &&
			ts.isIdentifier(node.expression) &&
			node.expression.text === "RegExp"
		) {
			const [pattern, flags] = node.arguments ?? [];
			const source = pattern === undefined ? undefined : literalText(pattern, sf);
			const flagText = flags === undefined ? "" : literalText(flags, sf);
			if (source !== undefined && flagText !== undefined)
				found.push({ file, line: lineOf(node), source, flags: flagText });
			else dynamic.push({ file, line: lineOf(node), text: node.getText(sf) });
		}
		ts.forEachChild(node, visit);
	};
	visit(sf);
	return { found, dynamic };
}

/** Every regular expression in the .ts files under `dir` (paths relative to `root`). */
export function regexesUnder(root: string, dir: string): { found: FoundRegex[]; dynamic: DynamicRegex[] } {
	const found: FoundRegex[] = [];
	const dynamic: DynamicRegex[] = [];
	for (const path of filesUnder(dir)) {
		const r = regexesIn(readFileSync(path, "utf8"), relative(root, path).split("\\").join("/"));
		found.push(...r.found);
		dynamic.push(...r.dynamic);
	}
	return { found, dynamic };
}

// The native agent (a single binary from the recheck-linux-x64 / -macos / -windows package) checks in
// milliseconds; the pure-JS build is 5-10x slower. Chosen explicitly so the test never silently falls back to
// Java or a worker pool. RECHECK_BACKEND=pure in the environment selects the JS build where no binary exists.
process.env.RECHECK_BACKEND ??= "native";

/**
 * recheck's parameters: the time limits inside the analysis (attack, incubation, seeding) are off so that the
 * verdict depends on step counts (characters read), not on how busy the machine is; the seed is fixed. Only the
 * overall `timeout` is wall-clock, a backstop: a check that reaches it is "unknown", which the test fails.
 */
export const RECHECK_PARAMS = {
	checker: "auto",
	randomSeed: 0,
	attackTimeout: null,
	incubationTimeout: null,
	seedingTimeout: null,
	recallTimeout: -1,
	timeout: 20_000,
} as const;

/** What the check says of one regular expression. */
export type Verdict =
	| { kind: "safe"; complexity: string }
	| { kind: "vulnerable"; complexity: "polynomial" | "exponential"; attack: string }
	| { kind: "unknown"; reason: string };

/** recheck's verdict on one regular expression, reduced to what the test needs. */
export async function verdictOf(source: string, flags: string): Promise<Verdict> {
	const d: Diagnostics = await check(source, flags, RECHECK_PARAMS);
	if (d.status === "safe") return { kind: "safe", complexity: d.complexity.type };
	if (d.status === "vulnerable") return { kind: "vulnerable", complexity: d.complexity.type, attack: d.attack.pattern };
	return { kind: "unknown", reason: "message" in d.error ? `${d.error.kind}: ${d.error.message}` : d.error.kind };
}

/** A super-linear regex let through because its input is capped (see test/regex-allow.ts). */
export interface AllowedRegex {
	file: string;
	source: string;
	flags: string;
	/** The longest text that can reach the regex, in characters. */
	maxInput: number;
	/** Code that enforces the cap (a `.slice(0, N)`, a length check), found verbatim in `capFile` (default `file`). */
	capCode: string;
	capFile?: string;
	reason: string;
}

/** A regex built at run time, by the exact code that builds it, and why the pattern it builds is linear. */
export interface DynamicRegexNote {
	file: string;
	code: string;
	reason: string;
}

/** What the review of a set of regexes found. */
export interface RegexReview {
	/** One sentence per failure: a super-linear or undecided regex not allowed, a stale or unproven allow entry. */
	problems: string[];
	/** Super-linear regexes let through, with their entry. */
	allowed: Array<{ regex: FoundRegex; entry: AllowedRegex; verdict: Verdict }>;
	checked: number;
}

const shown = (r: { source: string; flags: string }) => `/${r.source}/${r.flags}`;

/**
 * Runs recheck on every regex (two at a time) and holds the verdicts against the allow-list: a vulnerable or
 * unknown verdict fails unless an entry names the regex and its cap code is in the source (`readSource` reads
 * a repository file, "" when missing); an entry whose regex is safe now, or that names no regex, fails too.
 */
export async function reviewRegexes(
	found: readonly FoundRegex[],
	allow: readonly AllowedRegex[],
	readSource: (file: string) => string,
): Promise<RegexReview> {
	const verdicts: Verdict[] = new Array(found.length);
	let next = 0;
	const worker = async (): Promise<void> => {
		for (let i = next++; i < found.length; i = next++) {
			const r = found[i]!;
			verdicts[i] = await verdictOf(r.source, r.flags);
		}
	};
	await Promise.all([worker(), worker()]);
	const review: RegexReview = { problems: [], allowed: [], checked: found.length };
	const used = new Set<AllowedRegex>();
	found.forEach((regex, i) => {
		const verdict = verdicts[i]!;
		const where = `${regex.file}:${regex.line} ${shown(regex)}`;
		const entry = allow.find((a) => a.file === regex.file && a.source === regex.source && a.flags === regex.flags);
		if (entry) used.add(entry);
		if (verdict.kind === "safe") {
			if (entry)
				review.problems.push(`${where} is allowed, but recheck finds it ${verdict.complexity}: drop the entry`);
			return;
		}
		const why =
			verdict.kind === "vulnerable"
				? `${verdict.complexity} backtracking, e.g. on ${verdict.attack}`
				: `recheck could not decide (${verdict.reason})`;
		if (!entry) {
			review.problems.push(`${where}: ${why}. Fix it, or allow it in test/regex-allow.ts behind a cap on its input`);
			return;
		}
		const capFile = entry.capFile ?? entry.file;
		if (!(Number.isInteger(entry.maxInput) && entry.maxInput > 0) || entry.reason.trim() === "")
			review.problems.push(`${where}: its entry needs a positive maxInput and a reason`);
		else if (entry.capCode.trim() === "" || !readSource(capFile).includes(entry.capCode))
			review.problems.push(`${where}: the cap it cites (${JSON.stringify(entry.capCode)}) is not in ${capFile}`);
		else review.allowed.push({ regex, entry, verdict });
	});
	for (const entry of allow)
		if (!used.has(entry)) review.problems.push(`allowed ${entry.file} ${shown(entry)} matches no regex in the source`);
	return review;
}
