/**
 * What the ReDoS check (test/regex-safety.test.ts) lets through, each entry with its reason.
 * ALLOWED_REGEXES: regexes recheck calls super-linear that stay because the text reaching them is capped (the
 * test finds the capping code in the file it names). Empty is the goal: a flagged regex that sees text from
 * outside (model output, learner input, platform payloads) is fixed, never allowed without a real cap.
 * DYNAMIC_REGEXES: `RegExp(...)` whose pattern is built at run time, so recheck cannot see it; each says why
 * the built pattern is linear. A new one fails the test until it is listed here.
 */
import type { AllowedRegex, DynamicRegexNote } from "./regex-scan.ts";

/** Super-linear regexes kept behind a cap on their input (none today). */
export const ALLOWED_REGEXES: readonly AllowedRegex[] = [];

/** Regexes built at run time, by the exact code that builds them. */
export const DYNAMIC_REGEXES: readonly DynamicRegexNote[] = [
	{
		file: "src/adapters/terminal/plan-pictures.ts",
		// biome-ignore lint/suspicious/noTemplateCurlyInString: source code quoted as text
		code: 'new RegExp(`^${this.prefix.replace(/[.]/g, "\\\\.")}-(\\\\d+)\\\\.png$`)',
		reason:
			"anchored literal: the prefix holds only [A-Za-z0-9._-] (the constructor replaces the rest) and its dots are escaped; then -(\\d+)\\.png$",
	},
	{
		file: "src/agent/engine/anonymise.ts",
		// biome-ignore lint/suspicious/noTemplateCurlyInString: source code quoted as text
		code: 'new RegExp(`(?<![\\\\p{L}\\\\p{N}_])(?:${alternatives.join("|")})(?![\\\\p{L}\\\\p{N}_])`, "giu")',
		reason:
			"an alternation of escaped literals (escapeRegExp) with no quantifier, case-insensitive: each start costs at most the sum of the names' lengths (a person's few name parts)",
	},
	{
		file: "src/render/math/typeset.ts",
		// biome-ignore lint/suspicious/noTemplateCurlyInString: source code quoted as text
		code: 'new RegExp(`\\\\s${name}="([0-9.]+)ex"`)',
		reason: 'name is "width" or "height" (sizeOf\'s two calls): \\swidth="([0-9.]+)ex", on the root tag only',
	},
];
