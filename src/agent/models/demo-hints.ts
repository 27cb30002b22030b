/**
 * The demo model's answer to the hint side call (engine/hint-call.ts): a
 * deterministic hint built from the question in the request, never the
 * answer (the engine checks that too). Recognised by the hint request's
 * marker on the system prompt's first line.
 */

import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { HINT_REQUEST_MARKER } from "../../core/contracts/side-calls.ts";

/** The demo's hint for a hint request, or undefined when `prompt` is not one. */
export function demoHintReply(prompt: LanguageModelV3Prompt): { text: string } | undefined {
	const system = prompt.find((m) => m.role === "system");
	if (!system?.content.startsWith(HINT_REQUEST_MARKER)) return undefined;
	const user = prompt.find((m) => m.role === "user");
	const text = user?.content.map((p) => (p.type === "text" ? p.text : "")).join("\n") ?? "";
	const tried = /^The learner tried: (.*)$/m.exec(text)?.[1];
	const given = /^Hints given already/m.test(text);
	if (given)
		return { text: "Count how many items are still possible after each comparison: what does one step leave?" };
	if (tried)
		return {
			text: `You tried ${tried.trim()}. Picture the list and one comparison: which part of it can you rule out, and why?`,
		};
	return { text: "Think about what one comparison tells you: which items does it rule out?" };
}
