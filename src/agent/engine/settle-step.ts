/**
 * Settle one model step: write its text and tool calls into the transcript as
 * UI parts (every call gets a state: waiting for the learner, a result, or an
 * error the model sees) and list the events to emit, in order.
 */

import type { TutorEvent } from "../../core/contracts/events.ts";
import type { ProbeDoneResult } from "../../core/contracts/probe.ts";
import { parseExplainInput } from "../../core/tool-parts.ts";
import { toolCallIds } from "../../core/transcript.ts";
import type { OpenIndex } from "../../material/index.ts";
import type { LessonMessage, SessionRecord } from "../store/types.ts";
import { citationOf } from "../tools/explain.ts";
import type { LessonAgent } from "./agents.ts";
import type { StepContent } from "./model-step.ts";
import { planEventIfChanged } from "./plan-tracker.ts";
import { questionEvent } from "./question-events.ts";
import { appendAssistantParts } from "./record-edit.ts";

type Part = LessonMessage["parts"][number];
type ToolCall = Extract<StepContent, { type: "tool-call" }>;

/** What settling a step found. */
export interface SettledStep {
	draftId: string | undefined;
	events: TutorEvent[];
	toolCalls: number;
	learnerPending: number;
	probeDone: boolean;
	recap: boolean;
}

/** What settling needs. */
export interface SettleInput {
	record: SessionRecord;
	agent: LessonAgent;
	content: StepContent[];
	/** The turn's assistant message so far (undefined: start one). */
	draftId: string | undefined;
	freshMessage: () => LessonMessage;
	/** The lesson's material, loaded for the turn (search_material and explain's citations read it). */
	material?: OpenIndex;
}

/** Most characters of a refused call's raw input kept in the transcript (the model sees them again). */
export const MAX_REFUSED_INPUT_CHARS = 4_000;
/** Most characters of an error text kept for the model. */
const MAX_ERROR_CHARS = 2_000;

/**
 * A refused call's input as the transcript keeps it: as the model sent it when it is short
 * and serializable (text, or a parsed value), else a truncated text copy; a value too deep or
 * too odd to serialize is described instead. Bounded either way: a save can never fail (or
 * grow without bound) on model output.
 */
export function boundedRawInput(input: unknown): unknown {
	let text: string;
	if (typeof input === "string") text = input;
	else {
		try {
			text = JSON.stringify(input) ?? String(input);
		} catch {
			return "[the arguments could not be kept: nested too deeply or not serializable]";
		}
		if (text.length <= MAX_REFUSED_INPUT_CHARS && depthWithin(input, MAX_KEPT_DEPTH)) return input;
	}
	return text.length <= MAX_REFUSED_INPUT_CHARS
		? text
		: `${text.slice(0, MAX_REFUSED_INPUT_CHARS)}… [${text.length - MAX_REFUSED_INPUT_CHARS} more characters not kept]`;
}

/** Deepest nesting of a refused value kept as a value (deeper ones are kept as text). */
const MAX_KEPT_DEPTH = 32;

/** True when the value nests no deeper than `max` (iterative: a deep value must not overflow the stack here). */
function depthWithin(value: unknown, max: number): boolean {
	const stack: Array<[unknown, number]> = [[value, 0]];
	while (stack.length > 0) {
		const [v, d] = stack.pop() as [unknown, number];
		if (typeof v !== "object" || v === null) continue;
		if (d >= max) return false;
		for (const inner of Object.values(v)) stack.push([inner, d + 1]);
	}
	return true;
}

const boundedError = (text: string): string =>
	text.length <= MAX_ERROR_CHARS ? text : `${text.slice(0, MAX_ERROR_CHARS)}… [cut]`;

/** Keep tool call ids unique within a session (adapters key buttons by them; some models reuse ids). */
function uniqueId(id: string, taken: Set<string>): string {
	let candidate = id || "call";
	for (let n = 2; taken.has(candidate); n++) candidate = `${id}~${n}`;
	taken.add(candidate);
	return candidate;
}

/** Write a step into the transcript and collect its events. Never throws on model input. */
export function settleStep({ record, agent, content, draftId, freshMessage, material }: SettleInput): SettledStep {
	const sessionId = record.sessionId;
	const out: SettledStep = { draftId, events: [], toolCalls: 0, learnerPending: 0, probeDone: false, recap: false };
	if (content.length === 0) return out;
	const taken = toolCallIds(record.messages);
	const append = (part: Part) => {
		out.draftId = appendAssistantParts(record, out.draftId, [part], freshMessage);
	};
	append({ type: "step-start" });

	const calls = content.filter((c): c is ToolCall => c.type === "tool-call");
	const learnerCallsInStep = calls.filter(
		(c) => c.refused === undefined && agent.tools.get(c.toolName)?.learner,
	).length;
	// Separate texts of one step (two output messages, text around a tool call) read as paragraphs.
	const text = content
		.filter((c) => c.type === "text" && c.text.trim() !== "")
		.map((c) => (c as { text: string }).text.trim())
		.join("\n\n");
	if (text.trim() !== "") out.events.push({ type: "text", sessionId, text: text.trim() });

	for (const item of content) {
		if (item.type === "text") {
			if (item.text !== "") append({ type: "text", text: item.text, state: "done" });
			continue;
		}
		if (item.type === "reasoning") {
			const providerMetadata = item.providerMetadata ? { providerMetadata: item.providerMetadata } : {};
			append({ type: "reasoning", text: item.text, state: "done", ...providerMetadata } as Part);
			continue;
		}
		out.toolCalls++;
		const toolCallId = uniqueId(item.toolCallId, taken);
		const type = `tool-${item.toolName}` as const;
		const meta = item.providerMetadata ? { callProviderMetadata: item.providerMetadata } : {};
		const tool = agent.tools.get(item.toolName);
		const refuse = (errorText: string) =>
			append({
				type,
				toolCallId,
				state: "output-error",
				input: undefined,
				rawInput: boundedRawInput(item.input),
				errorText: boundedError(errorText),
				...meta,
			} as Part);
		if (item.refused !== undefined || !tool) {
			refuse(item.refused ?? `Unknown tool ${JSON.stringify(item.toolName)}.`);
			continue;
		}
		if (tool.learner) {
			// A learner tool may refuse a call too (a quiz on a node not on the map: tools/quiz.ts).
			const check = tool.settle(item.input, {
				messages: record.messages,
				learnerCallsInStep,
				...(material ? { material } : {}),
			});
			if (check.kind === "error") {
				refuse(check.errorText);
				continue;
			}
			const question = questionEvent(record, item.toolName, toolCallId, item.input);
			if (!question) {
				// Boundary and display run the same chain, so this is a bug guard, not a path.
				refuse("The question could not be displayed; check its fields and send it again.");
				continue;
			}
			append({ type, toolCallId, state: "input-available", input: item.input, ...meta } as Part);
			out.learnerPending++;
			if (question.type === "quiz") {
				// A tagged quiz moves the derived current node: the map goes out before the quiz.
				const plan = planEventIfChanged(record);
				if (plan) out.events.push(plan);
			}
			out.events.push(question);
			continue;
		}
		const outcome = tool.settle(item.input, {
			messages: record.messages,
			learnerCallsInStep,
			...(material ? { material } : {}),
		});
		if (outcome.kind !== "output") {
			refuse(outcome.kind === "error" ? outcome.errorText : "This tool is answered by the learner.");
			continue;
		}
		append({ type, toolCallId, state: "output-available", input: item.input, output: outcome.output, ...meta } as Part);
		if (item.toolName === "explain") {
			const input = parseExplainInput(item.input);
			// Accepted with a source: the citation passed the check (tools/explain.ts), so the card may show it.
			const cited = citationOf(item.input);
			const part = material?.stored.unit === "part" ? { part: true as const } : {};
			const citation =
				cited && material ? { citation: { source: material.stored.name, page: cited.page, ...part } } : {};
			if (input) out.events.push({ type: "explain", sessionId, toolCallId, input, ...citation });
			if (input?.role === "recap") out.recap = true;
		} else if (item.toolName === "plan_init") {
			const plan = planEventIfChanged(record);
			if (plan) out.events.push(plan);
		} else if (item.toolName === "probe_done") {
			const { assessment } = outcome.output as ProbeDoneResult;
			out.events.push({ type: "assessment", sessionId, toolCallId, assessment });
			out.probeDone = true;
		}
	}
	return out;
}
