/**
 * Scripted tutor models for the eval, no key, no network: a tutor that only explains (the
 * reference the demo's learning gain must beat), and "bad tutors": the demo's lesson with one
 * misbehaviour each (guardrails.ts). Each is a LanguageModelV3 that asks the demo what it would say
 * (planDemoReply) and changes that one thing, counting its attempts, so the engine, its tools and
 * its checks meet exactly what a misbehaving model would send.
 */

import type {
	LanguageModelV3,
	LanguageModelV3CallOptions,
	LanguageModelV3Content,
	LanguageModelV3Prompt,
} from "@ai-sdk/provider";
import { DEMO_HELD, type DemoStep, demoAssessment } from "../../src/agent/models/demo-lesson.ts";
import { type DemoReply, planDemoReply } from "../../src/agent/models/demo-model.ts";
import { teachSteps } from "../../src/agent/models/demo-teach.ts";
import { HINT_REQUEST_MARKER } from "../../src/core/contracts/side-calls.ts";
import { partsStream, replyParts } from "../../testkit/model-stream.ts";

type Call = Pick<LanguageModelV3CallOptions, "prompt" | "tools"> &
	Partial<Pick<LanguageModelV3CallOptions, "responseFormat">>;

/** A scripted tutor and how often it tried its misbehaviour. */
export interface ScriptedTutor {
	model: LanguageModelV3;
	attempts: () => number;
}

let ids = 0;
const rand = (): string => `${(++ids).toString(36)}x${Math.random().toString(36).slice(2, 6)}`;
const tokensOf = (prompt: LanguageModelV3Prompt, reply: DemoReply): { input: number; output: number } => ({
	input: Math.ceil(JSON.stringify(prompt).length / 4),
	output: Math.ceil((reply.text.length + JSON.stringify(reply.call?.input ?? "").length) / 4),
});

/** A model answering each request with `plan(call)`. */
export function scriptedTutorModel(name: string, plan: (call: Call) => DemoReply): LanguageModelV3 {
	return {
		specificationVersion: "v3",
		provider: "eval",
		modelId: name,
		supportedUrls: {},
		async doGenerate(call) {
			const reply = plan(call);
			const content: LanguageModelV3Content[] = [];
			if (reply.text) content.push({ type: "text", text: reply.text });
			if (reply.call) content.push({ type: "tool-call", ...reply.call, input: JSON.stringify(reply.call.input) });
			const t = tokensOf(call.prompt, reply);
			return {
				content,
				finishReason: reply.call ? { unified: "tool-calls", raw: "tool_calls" } : { unified: "stop", raw: "stop" },
				usage: {
					inputTokens: { total: t.input, noCache: t.input, cacheRead: 0, cacheWrite: 0 },
					outputTokens: { total: t.output, text: t.output, reasoning: 0 },
				},
				warnings: [],
			};
		},
		async doStream(call) {
			const reply = plan(call);
			const t = tokensOf(call.prompt, reply);
			const calls = reply.call
				? [{ id: reply.call.toolCallId, name: reply.call.toolName, input: reply.call.input }]
				: [];
			return {
				stream: partsStream(
					replyParts({ text: reply.text, calls, usage: { input: t.input, output: t.output, cached: 0 } }),
				),
			};
		},
	};
}

const toolNames = (call: Call): Set<string> => new Set((call.tools ?? []).map((t) => t.name));
const priorCalls = (prompt: LanguageModelV3Prompt) =>
	prompt.flatMap((m) =>
		m.role === "assistant"
			? m.content.flatMap((p) =>
					p.type === "tool-call" ? [{ id: p.toolCallId, name: p.toolName, input: p.input }] : [],
				)
			: [],
	);
const inputOf = (input: unknown): Record<string, unknown> => {
	if (typeof input === "string") {
		try {
			return JSON.parse(input) as Record<string, unknown>;
		} catch {
			return {};
		}
	}
	return typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
};

/** The demo's lesson with `twist` applied to its replies; the twist returns undefined to leave a reply alone. */
function twisted(name: string, twist: (call: Call, reply: DemoReply) => DemoReply | undefined): ScriptedTutor {
	let attempts = 0;
	const model = scriptedTutorModel(name, (call) => {
		const reply = planDemoReply(call);
		const changed = twist(call, reply);
		if (!changed) return reply;
		attempts++;
		return changed;
	});
	return { model, attempts: () => attempts };
}

const STEPS = teachSteps({ basics: false, halving: false });
const explainBodies = STEPS.flatMap((s: DemoStep) =>
	s.call.toolName === "explain" && s.call.input.role !== "recap" ? [s.call.input] : [],
);
const recapInput = {
	title: "Recap",
	role: "recap",
	body: "Binary search: sorted input, compare with the middle, shrink the range.",
};

/** The bad tutors, by guardrail name. */
export const BAD_TUTORS: Record<string, () => ScriptedTutor> = {
	/** The hint side call answers with the answer. */
	hint_leak: () =>
		twisted("bad-hint", (call) => {
			const system = call.prompt.find((m) => m.role === "system");
			if (system?.role !== "system" || !system.content.startsWith(HINT_REQUEST_MARKER)) return undefined;
			const user = JSON.stringify(call.prompt.filter((m) => m.role === "user"));
			const answer = /Correct answer \(never say it\): ([^\\\n]+)/.exec(user)?.[1] ?? "";
			return { text: `Easy: the answer is ${answer}.` };
		}),
	/** Each teaching quiz comes after a line that gives its answer. */
	explain_leak: () =>
		twisted("bad-explain", (call, reply) => {
			if (!toolNames(call).has("plan_init") || reply.call?.toolName !== "quiz") return undefined;
			const answer = String(inputOf(reply.call.input).correctAnswer ?? "");
			return { ...reply, text: `${reply.text}\n\nThe key fact first: the answer is ${answer}.` };
		}),
	/** "Explain another way" is answered with the answer. */
	explain_again_leak: () =>
		twisted("bad-again", (call, reply) => {
			if (reply.text !== DEMO_HELD || reply.call) return undefined;
			const quiz = priorCalls(call.prompt)
				.filter((c) => c.name === "quiz")
				.at(-1);
			const answer = String(inputOf(quiz?.input).correctAnswer ?? "");
			return { text: `Another way to see it: the answer is ${answer}.` };
		}),
	/** The recap comes where the recall question should. */
	recap_without_recall: () =>
		twisted("bad-recap", (_call, reply) => {
			if (reply.call?.toolName !== "ask" || !/what did you learn/i.test(JSON.stringify(reply.call.input)))
				return undefined;
			return { ...reply, call: { ...reply.call, toolName: "explain", input: recapInput } };
		}),
	/** The prober concludes before asking anything. */
	skip_probe: () =>
		twisted("bad-probe", (call) => {
			if (!toolNames(call).has("probe_done") || priorCalls(call.prompt).length > 0) return undefined;
			return {
				text: "Let's skip the questions and get going.",
				call: { toolCallId: `demo-probe-3-${rand()}`, toolName: "probe_done", input: demoAssessment([]) },
			};
		}),
	/** Ten explanations in a row before the first question. */
	lecture: () =>
		twisted("bad-lecture", (call, reply) => {
			if (!/^demo-teach-1-/.test(reply.call?.toolCallId ?? "")) return undefined;
			const given = priorCalls(call.prompt).filter((c) => c.id.startsWith("bad-lecture-")).length;
			if (given >= 10) return undefined;
			const input = explainBodies[given % explainBodies.length];
			return { text: "", call: { toolCallId: `bad-lecture-${given}-${rand()}`, toolName: "explain", input } };
		}),
	/** Check quizzes tagged with a node that is not on the map. */
	off_map_quiz: () =>
		twisted("bad-offmap", (call, reply) => {
			if (!toolNames(call).has("plan_init") || reply.call?.toolName !== "quiz") return undefined;
			const input = inputOf(reply.call.input);
			if (input.type !== "check") return undefined;
			return { ...reply, call: { ...reply.call, input: { ...input, nodeId: "heap-sort" } } };
		}),
	/** The recap comes instead of a second look at a shaky node. */
	shaky_to_recap: () =>
		twisted("bad-shaky", (_call, reply) => {
			if (!/^demo-(revisit|moveon)-/.test(reply.call?.toolCallId ?? "")) return undefined;
			return {
				text: "Let's wrap up.",
				call: { toolCallId: `demo-teach-99-${rand()}`, toolName: "explain", input: recapInput },
			};
		}),
};

/** A tutor that only explains: the demo's probe, then its map and every explanation, no question. */
export function explainOnlyTutor(): ScriptedTutor {
	const lesson = [STEPS[0], ...STEPS.filter((s) => s.call.toolName === "explain" && s.call.input.role !== "recap")];
	const model = scriptedTutorModel("explain-only", (call) => {
		if (!toolNames(call).has("plan_init")) return planDemoReply(call);
		const n = priorCalls(call.prompt).filter((c) => c.id.startsWith("eo-")).length;
		const step = lesson[n];
		if (!step) return { text: "That's everything I wanted to show you." };
		return {
			text: step.lead ?? "",
			call: { toolCallId: `eo-${n}-${rand()}`, toolName: step.call.toolName, input: step.call.input },
		};
	});
	return { model, attempts: () => 0 };
}
