/**
 * Reading the transcript (UIMessage[]): tool parts, pending learner calls, the
 * latest plan. Pure helpers; everything here is derived, never stored. Read by
 * the engine, the tools and the profile's lesson facts.
 */

import type { UIMessage } from "ai";
import type { PlanToolResult, PlanTree } from "./contracts/plan.ts";
import { isSuccessfulProbeDone } from "./phases.ts";

/** A transcript message as the readers need it: any UIMessage (the session record's LessonMessage is one). */
type LessonMessage = UIMessage<unknown>;

/** The tool parts as the engine writes them (`tool-<name>`), loosely typed for reading. */
export interface ToolPartView {
	type: string;
	toolCallId: string;
	state: string;
	input?: unknown;
	rawInput?: unknown;
	output?: unknown;
	errorText?: string;
}

/** Tools answered by the learner. */
export const LEARNER_TOOLS: ReadonlySet<string> = new Set(["quiz", "ask"]);

/** The tool name of a part type `tool-<name>`, or undefined for other parts. */
export function toolNameOf(type: string): string | undefined {
	return type.startsWith("tool-") ? type.slice(5) : undefined;
}

/** Every tool part of the transcript, in order. */
export function* toolParts(messages: readonly LessonMessage[]): Generator<ToolPartView> {
	for (const m of messages) {
		for (const part of m.parts) {
			if (part.type.startsWith("tool-") && "toolCallId" in part) yield part as unknown as ToolPartView;
		}
	}
}

/** Visit every tool part in order (a plain loop: the hot paths scan the whole transcript every step). */
function eachToolPart(messages: readonly LessonMessage[], visit: (part: ToolPartView) => void): void {
	for (let i = 0; i < messages.length; i++) {
		const parts = (messages[i] as LessonMessage).parts;
		for (let j = 0; j < parts.length; j++) {
			const part = parts[j] as unknown as ToolPartView;
			if (part.type.startsWith("tool-") && part.toolCallId !== undefined) visit(part);
		}
	}
}

/** A tool call by id: its message index, part index and part. */
export function findToolCall(
	messages: readonly LessonMessage[],
	toolCallId: string,
): { messageIndex: number; partIndex: number; part: ToolPartView } | undefined {
	for (let i = messages.length - 1; i >= 0; i--) {
		const parts = messages[i]?.parts ?? [];
		for (let j = 0; j < parts.length; j++) {
			const part = parts[j] as unknown as ToolPartView;
			if (part.type.startsWith("tool-") && part.toolCallId === toolCallId)
				return { messageIndex: i, partIndex: j, part };
		}
	}
	return undefined;
}

/** Learner calls (quiz/ask) still waiting for an answer. */
export function pendingLearnerCalls(
	messages: readonly LessonMessage[],
): Array<{ toolCallId: string; kind: "quiz" | "ask" }> {
	const pending: Array<{ toolCallId: string; kind: "quiz" | "ask" }> = [];
	eachToolPart(messages, (part) => {
		if (part.state !== "input-available") return;
		if (part.type === "tool-quiz") pending.push({ toolCallId: part.toolCallId, kind: "quiz" });
		else if (part.type === "tool-ask") pending.push({ toolCallId: part.toolCallId, kind: "ask" });
	});
	return pending;
}

/** Every tool call id in the transcript (to keep ids unique within a session). */
export function toolCallIds(messages: readonly LessonMessage[]): Set<string> {
	const ids = new Set<string>();
	eachToolPart(messages, (part) => ids.add(part.toolCallId));
	return ids;
}

/** The tree of the latest successful plan_init, or undefined before the first. */
export function latestPlanTree(messages: readonly LessonMessage[]): PlanTree | undefined {
	for (let i = messages.length - 1; i >= 0; i--) {
		const parts = (messages[i] as LessonMessage).parts;
		for (let j = parts.length - 1; j >= 0; j--) {
			const part = parts[j] as unknown as ToolPartView;
			if (part.type !== "tool-plan_init" || part.state !== "output-available") continue;
			const output = part.output as PlanToolResult | undefined;
			if (output?.ok && output.tree) return output.tree;
		}
	}
	return undefined;
}

/** True once a probe_done concluded the probe. */
export function probeConcluded(messages: readonly LessonMessage[]): boolean {
	let concluded = false;
	eachToolPart(messages, (part) => {
		if (!concluded && part.type === "tool-probe_done" && isSuccessfulProbeDone(part)) concluded = true;
	});
	return concluded;
}
