/**
 * The built-in demo model: a real LanguageModelV3 that plays one canned lesson
 * (demo-lesson.ts) with no key and no network. It is driven by the prompt it
 * receives, like a real model: the tools on offer say which agent is calling
 * (prober: probe_done; teacher: plan_init), and its own earlier tool calls in
 * the transcript (ids `demo-<agent>-<step>-<rand>`) say how far the lesson got,
 * so it works through the real engine, across restarts and resumes.
 */

import type {
	LanguageModelV3,
	LanguageModelV3CallOptions,
	LanguageModelV3Content,
	LanguageModelV3FinishReason,
	LanguageModelV3GenerateResult,
	LanguageModelV3Prompt,
	LanguageModelV3StreamPart,
	LanguageModelV3ToolResultOutput,
	LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { GRADE_OUTPUT_NAME } from "../../core/contracts/side-calls.ts";
import { isHeldOutput, parseLateAnswer } from "../../core/late-answer.ts";
import { outcomeOf } from "../../core/outcome.ts";
import { REVOTE_SUFFIX } from "../../core/votes.ts";
import { demoGrade, graderLocale } from "./demo-grader.ts";
import { demoHintReply } from "./demo-hints.ts";
import {
	answeredRight,
	DEMO_CANNOT_CHAT,
	DEMO_FAREWELL,
	DEMO_HELD,
	type DemoAnswer,
	type DemoReply,
	type DemoStep,
	demoAssessment,
	demoDiscussion,
	demoGreeting,
	demoPath,
	PROBE_FAREWELL,
	PROBE_STEPS,
} from "./demo-lesson.ts";
import { materialDemoReply } from "./demo-material.ts";
import { demoRecallLine } from "./demo-recall.ts";
import { nextRevisit, promptParts, resultValue, revisitStepOf, treeOf } from "./demo-revisit.ts";
import { teachSteps } from "./demo-teach.ts";

type Agent = "probe" | "teach";

interface RecordedCall {
	toolCallId: string;
	toolName: string;
	agent?: Agent;
	step?: number;
}

export type { DemoReply } from "./demo-lesson.ts";

const MARKER = /^demo-(probe|teach)-(\d+)-/;

/** The built-in scripted model (LEARNHARNESS_MODEL=demo). */
export function createDemoModel(): LanguageModelV3 {
	return {
		specificationVersion: "v3",
		provider: "learnharness",
		modelId: "demo",
		supportedUrls: {},
		async doGenerate(call: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
			call.abortSignal?.throwIfAborted();
			const reply = planDemoReply(call);
			const content: LanguageModelV3Content[] = [];
			if (reply.text) content.push({ type: "text", text: reply.text });
			if (reply.call) content.push({ type: "tool-call", ...reply.call, input: JSON.stringify(reply.call.input) });
			return {
				content,
				finishReason: finishOf(reply),
				usage: usageOf(call.prompt, reply),
				warnings: [],
				response: { id: `demo-${randomId()}`, modelId: "demo", timestamp: new Date() },
			};
		},
		async doStream(call: LanguageModelV3CallOptions) {
			const reply = planDemoReply(call);
			const parts = streamParts(call.prompt, reply);
			const signal = call.abortSignal;
			let index = 0;
			const stream = new ReadableStream<LanguageModelV3StreamPart>({
				pull(controller) {
					if (signal?.aborted) {
						controller.error(signal.reason ?? new Error("aborted"));
						return;
					}
					const part = parts[index++];
					if (!part) {
						controller.close();
						return;
					}
					controller.enqueue(part);
				},
			});
			return { stream };
		},
	};
}

/** Decides the next response from the prompt and the tools on offer (exported for tests). */
export function planDemoReply(
	call: Pick<LanguageModelV3CallOptions, "prompt" | "tools"> &
		Partial<Pick<LanguageModelV3CallOptions, "responseFormat">>,
): DemoReply {
	// A grading request (structured output): the verdict as JSON, from the demo grader's fixed rules.
	const format = call.responseFormat;
	if (format?.type === "json" && format.name === GRADE_OUTPUT_NAME)
		return { text: JSON.stringify(demoGrade(lastUserText(call.prompt, true) ?? "", graderLocale(call.prompt))) };
	const hint = demoHintReply(call.prompt); // the hint side call: no tools, answered apart from the lesson
	if (hint) return hint;
	const toolNames = new Set((call.tools ?? []).map((t) => t.name));
	// A lesson on the learner's material plays its own script (demo-material.ts).
	const material = materialDemoReply(call.prompt, toolNames, lastUserText(call.prompt));
	if (material) return material;
	const calls = collectCalls(call.prompt);
	const results = collectResults(call.prompt);
	// Say once that typing does not work with the demo; later typed messages just move on.
	// A question still open under a typed message: the demo cannot answer it, and asks nothing new.
	const open = calls.at(-1);
	if (open && (open.toolName === "quiz" || open.toolName === "ask") && !results.has(open.toolCallId))
		return { text: DEMO_HELD };
	const typed = lastUserText(call.prompt) && !saidCannotChat(call.prompt) ? `${DEMO_CANNOT_CHAT}\n\n` : "";
	if (toolNames.has("probe_done"))
		return probeReply(calls, results, typed, findTopic(call.prompt), demoRecallLine(call.prompt));
	if (toolNames.has("plan_init")) return teachReply(calls, results, typed, call.prompt);
	// No lesson tools: someone is just talking to the model (a health check, a summary request).
	return { text: "I'm the learnharness demo model: I only play the built-in binary search lesson." };
}

function probeReply(
	calls: RecordedCall[],
	results: Map<string, DemoAnswer>,
	typed: string,
	topic: string | undefined,
	recall = "",
): DemoReply {
	const mine = calls.filter((c) => c.agent === "probe");
	const last = mine.at(-1);
	const next = nextStep(mine, results);
	if (next === 0)
		return withStep("probe", 0, `${recall ? `${recall}\n\n` : ""}${demoGreeting(topic)}\n\n`, PROBE_STEPS[0]);
	const reaction = typed + reactionTo(PROBE_STEPS[next - 1], last ? results.get(last.toolCallId) : undefined);
	if (next < PROBE_STEPS.length) return withStep("probe", next, reaction, PROBE_STEPS[next]);
	if (next === PROBE_STEPS.length) {
		const answers = probeAnswers(calls, results);
		const text = `${reaction}\n\nThat's all I need to know.`.trim();
		return {
			text,
			call: { toolCallId: callId("probe", next), toolName: "probe_done", input: demoAssessment(answers) },
		};
	}
	return { text: `${typed}${PROBE_FAREWELL}`.trim() };
}

/** The learner's answers to the probe's questions, in PROBE_STEPS order (undefined: not answered). */
function probeAnswers(calls: RecordedCall[], results: Map<string, DemoAnswer>): Array<DemoAnswer | undefined> {
	const mine = calls.filter((c) => c.agent === "probe");
	return PROBE_STEPS.map((_, i) => {
		const c = mine.filter((m) => m.step === i).at(-1);
		return c ? results.get(c.toolCallId) : undefined;
	});
}

function teachReply(
	calls: RecordedCall[],
	results: Map<string, DemoAnswer>,
	typed: string,
	prompt: LanguageModelV3Prompt,
): DemoReply {
	// The route follows the probe's answers (they never change, so every step agrees on it).
	const steps = teachSteps(demoPath(probeAnswers(calls, results)));
	const mine = calls.filter((c) => c.agent === "teach");
	const last = mine.at(-1);
	// A group's vote that is voted again: this turn is the discussion (no call); the same question re-opens.
	const voted = last && results.get(last.toolCallId);
	if (voted?.revote && !last?.toolCallId.endsWith(REVOTE_SUFFIX))
		return { text: `${typed}${demoDiscussion(voted.revote)}`.trim() };
	const next = nextStep(mine, results);
	// Shaky nodes come back before the recall ask (the explain tool refuses the recap until they did).
	const parts = promptParts(prompt);
	const tree = treeOf(parts);
	const lastCall = calls.filter((c) => c.agent === "teach" || (tree && revisitStepOf(tree, c.toolCallId))).at(-1);
	const lastStep =
		lastCall?.agent === "teach"
			? steps[lastCall.step ?? -1]
			: tree && lastCall && revisitStepOf(tree, lastCall.toolCallId);
	const reaction = typed + (next > 0 ? reactionTo(lastStep, lastCall && results.get(lastCall.toolCallId)) : "");
	const revisit = next === steps.length - 2 && tree ? nextRevisit(tree, parts, randomId) : undefined;
	if (revisit) return withCall(revisit.toolCallId, reaction, revisit.step);
	if (next < steps.length) return withStep("teach", next, reaction, steps[next]);
	// After the recap, text with no question ends the turn, and with it the lesson.
	return { text: `${typed}${DEMO_FAREWELL}`.trim() };
}

/**
 * The script step to play next: the one after the last call, or the last one again when its
 * call came back as an error (interrupted by a restart, refused), as a real model would retry;
 * a step that failed twice is skipped.
 */
function nextStep(mine: RecordedCall[], results: Map<string, DemoAnswer>): number {
	const last = mine.at(-1);
	if (last?.step === undefined) return 0;
	if (!results.get(last.toolCallId)?.error) return last.step + 1;
	const failures = mine.filter((c) => c.step === last.step && results.get(c.toolCallId)?.error).length;
	return failures >= 2 ? last.step + 1 : last.step;
}

/** True when an earlier demo reply already said that typed messages are not understood. */
function saidCannotChat(prompt: LanguageModelV3Prompt): boolean {
	return prompt.some(
		(m) => m.role === "assistant" && m.content.some((p) => p.type === "text" && p.text.includes(DEMO_CANNOT_CHAT)),
	);
}

function withStep(agent: Agent, step: number, before: string, demoStep: DemoStep | undefined): DemoReply {
	return withCall(callId(agent, step), before, demoStep);
}

function withCall(toolCallId: string, before: string, demoStep: DemoStep | undefined): DemoReply {
	if (!demoStep) return { text: before.trim() };
	const text = [before.trim(), demoStep.lead ?? ""].filter((s) => s !== "").join("\n\n");
	const { toolName, input } = demoStep.call;
	return { text, call: { toolCallId, toolName, input } };
}

/** The sentence that reacts to the learner's answer to a step's question. */
function reactionTo(step: DemoStep | undefined, answer: DemoAnswer | undefined): string {
	if (!step || !answer) return "";
	if (answer.error) return "";
	if (answer.outcome === "skipped") return "Let's leave that one.";
	const c = step.call;
	if (c.toolName === "quiz" && answer.outcome === "not-sure")
		return c.input.type === undefined
			? "No problem: knowing what you don't know yet helps me pick where to start."
			: `No problem, let's work it out. ${c.wrong}`;
	if (c.toolName === "quiz" && answer.outcome === "pending")
		return `I'm the demo model, so I can't judge that wording; the answer I had in mind is **${c.input.correctAnswer}**.`;
	// Judged by the grader: say how the words were read, then react as to any answer.
	const read = answer.reason ? `I read your answer this way: ${answer.reason} ` : "";
	if (c.toolName === "quiz") return `${read}${answeredRight(answer) ? c.right : c.wrong}`;
	if (c.toolName === "ask")
		return (
			(answer.answer && c.reactions[answer.answer]) ||
			(answer.answer && c.reply ? c.reply(answer.answer) : "") ||
			"Thanks, noted."
		);
	return "";
}

function collectCalls(prompt: LanguageModelV3Prompt): RecordedCall[] {
	const calls: RecordedCall[] = [];
	for (const message of prompt) {
		if (message.role !== "assistant") continue;
		for (const part of message.content) {
			if (part.type !== "tool-call") continue;
			const m = MARKER.exec(part.toolCallId);
			const recorded: RecordedCall = { toolCallId: part.toolCallId, toolName: part.toolName };
			if (m) {
				recorded.agent = m[1] as Agent;
				recorded.step = Number(m[2]);
			}
			calls.push(recorded);
		}
	}
	return calls;
}

function collectResults(prompt: LanguageModelV3Prompt): Map<string, DemoAnswer> {
	const results = new Map<string, DemoAnswer>();
	for (const message of prompt) {
		// A question answered after it was kept open: its result comes in a later message (core/late-answer.ts).
		if (message.role === "user")
			for (const part of message.content) {
				const late = part.type === "text" ? parseLateAnswer(part.text) : undefined;
				if (late) results.set(late.toolCallId, answerOf(late.result));
			}
		if (message.role !== "tool" && message.role !== "assistant") continue;
		for (const part of message.content) {
			// Still open (the learner wrote something first): not a result yet.
			if (part.type === "tool-result" && !(part.output.type === "json" && isHeldOutput(part.output.value)))
				results.set(part.toolCallId, readAnswer(part.output));
		}
	}
	return results;
}

/** Reads the answer and its outcome (core/outcome.ts) out of a tool result, whatever its encoding. */
function readAnswer(output: LanguageModelV3ToolResultOutput): DemoAnswer {
	const { error, value } = resultValue(output);
	if (error) return { error: true };
	// A text result that is not JSON is the answer itself.
	return output.type === "text" && value === output.value ? { answer: output.value } : answerOf(value);
}

/** The answer and its outcome out of a result's value. */
function answerOf(value: unknown): DemoAnswer {
	if (typeof value !== "object" || value === null) return {};
	const v = value as Record<string, unknown>;
	const answer: DemoAnswer = {};
	if (typeof v.answer === "string") answer.answer = v.answer;
	const outcome = outcomeOf(v);
	answer.outcome = outcome.kind;
	if (outcome.tally === "split") answer.revote = (v.vote as { split?: unknown }).split === true ? "split" : "wrong";
	if (v.judged === "grader" && typeof v.reason === "string") answer.reason = v.reason.slice(0, 200);
	if (v.ok === false || typeof v.error === "string") answer.error = true;
	return answer;
}

/** The learner's typed text when the prompt ends with a user message (not a tool result); `first`: even the opening one. */
function lastUserText(prompt: LanguageModelV3Prompt, first = false): string | undefined {
	const last = prompt.at(-1);
	if (last?.role !== "user" || last.content.some((p) => p.type === "text" && parseLateAnswer(p.text))) return undefined;
	// The opening user message (the lesson request) is not "typing during the lesson".
	if (!first && !prompt.some((m) => m.role === "assistant")) return undefined;
	const text = last.content.map((p) => (p.type === "text" ? p.text : "")).join(" ");
	return text.trim() || undefined;
}

/** The requested topic, when the engine's prompt names it (`Topic: …`). */
export function findTopic(prompt: LanguageModelV3Prompt): string | undefined {
	const texts: string[] = [];
	for (const m of prompt) {
		if (m.role === "user") for (const p of m.content) if (p.type === "text") texts.push(p.text);
	}
	for (const m of prompt) if (m.role === "system") texts.push(m.content);
	for (const text of texts) {
		// "\s*(?:\*+\s*)?", not "\s*\**\s*": two adjacent "\s*" split a run of spaces every way (quadratic).
		const match = /\btopic\b\**\s*[:=]\s*(?:\*+\s*)?["“'`]?([^"”'`\n]{1,120})/i.exec(text);
		const topic = match?.[1]?.trim().replace(/(?<![.*])[.*]+$/, "");
		if (topic) return topic;
	}
	return undefined;
}

function finishOf(reply: DemoReply): LanguageModelV3FinishReason {
	return reply.call ? { unified: "tool-calls", raw: "tool_calls" } : { unified: "stop", raw: "stop" };
}

/** Rough token counts (4 characters a token), so usage tracking has something real to add. */
function usageOf(prompt: LanguageModelV3Prompt, reply: DemoReply): LanguageModelV3Usage {
	const input = Math.ceil(JSON.stringify(prompt).length / 4);
	const output = Math.ceil((reply.text.length + JSON.stringify(reply.call?.input ?? "").length) / 4);
	return {
		inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
		outputTokens: { total: output, text: output, reasoning: 0 },
	};
}

function streamParts(prompt: LanguageModelV3Prompt, reply: DemoReply): LanguageModelV3StreamPart[] {
	const parts: LanguageModelV3StreamPart[] = [
		{ type: "stream-start", warnings: [] },
		{ type: "response-metadata", id: `demo-${randomId()}`, modelId: "demo", timestamp: new Date() },
	];
	if (reply.text) {
		const id = `text-${randomId()}`;
		parts.push({ type: "text-start", id });
		for (const chunk of reply.text.match(/\S+\s*|\s+/g) ?? []) parts.push({ type: "text-delta", id, delta: chunk });
		parts.push({ type: "text-end", id });
	}
	if (reply.call) {
		const { toolCallId: id, toolName } = reply.call;
		const input = JSON.stringify(reply.call.input);
		parts.push({ type: "tool-input-start", id, toolName });
		for (let i = 0; i < input.length; i += 64)
			parts.push({ type: "tool-input-delta", id, delta: input.slice(i, i + 64) });
		parts.push({ type: "tool-input-end", id });
		parts.push({ type: "tool-call", toolCallId: id, toolName, input });
	}
	parts.push({ type: "finish", finishReason: finishOf(reply), usage: usageOf(prompt, reply) });
	return parts;
}

function callId(agent: Agent, step: number): string {
	return `demo-${agent}-${step}-${randomId()}`;
}

function randomId(): string {
	return Math.random().toString(36).slice(2, 10);
}
