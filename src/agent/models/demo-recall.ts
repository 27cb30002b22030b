/**
 * The demo prober's use of the learner profile: when the lesson's start note
 * carries the profile's note (agent/profile/prior-note.ts), the demo's greeting
 * says what it skips and why, as a real prober is told to. Reads the first
 * user message of the prompt only; bounded.
 */

import type { LanguageModelV3Prompt } from "@ai-sdk/provider";

// No field crosses a line end of any kind: with "m", "^" also starts after \r or \u2028, and a field that ran
// over them was rescanned from each such start (quadratic).
const LESSON_LINE =
	/^- "([^"\n\r\u2028\u2029]{1,300})" \(([\d-]{10})\): learned ([^;\n\r\u2028\u2029]{1,600}); shaky ([^;\n\r\u2028\u2029]{1,600});/m;

/** "A, B and C" from "A, B, C". */
function listed(text: string): string {
	const parts = text.split(", ").filter((p) => p !== "" && p !== "none");
	return parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

/** The line the demo prober opens with when the profile shows related knowledge; "" when it shows none. */
export function demoRecallLine(prompt: LanguageModelV3Prompt): string {
	const first = prompt.find((m) => m.role === "user");
	if (first?.role !== "user") return "";
	const text = first.content
		.map((p) => (p.type === "text" ? p.text : ""))
		.join("\n")
		.slice(0, 4_000);
	const match = LESSON_LINE.exec(text);
	if (!match) return "";
	const [, topic, date, learned = "", shaky = ""] = match;
	const known = listed(learned);
	if (known === "") return "";
	const weak = listed(shaky);
	return (
		`Welcome back! In our lesson on ${topic} (${date}) you showed you know ${known}, so I'll skip ${known.includes(" and ") ? "those" : "that"}` +
		(weak ? ` and start from ${weak}, which was still shaky.` : ".")
	);
}
