/**
 * The two lesson agents: a system prompt and a tool set each. Built once per
 * tutor so every request of a phase carries byte-identical system and tools.
 */

import type { ToolSet } from "ai";
import type { Locale } from "../../i18n/index.ts";
import { languageInstruction } from "../prompts/context.ts";
import { PROBER_PROMPT, TEACHER_PROMPT } from "../prompts/index.ts";
import { createAskTool } from "../tools/ask.ts";
import { createExplainTool } from "../tools/explain.ts";
import { createPlanInitTool } from "../tools/plan-init.ts";
import { createProbeDoneTool } from "../tools/probe-done.ts";
import { createQuizTool } from "../tools/quiz.ts";
import type { LessonTool } from "../tools/types.ts";

/** A lesson agent: who it is, what it is told, what it may call. */
export interface LessonAgent {
	name: "prober" | "teacher";
	system: string;
	tools: ReadonlyMap<string, LessonTool>;
	/** The same tools as the AI SDK sees them (no execute: the engine settles every call). */
	toolSet: ToolSet;
}

function agent(name: LessonAgent["name"], system: string, tools: LessonTool[]): LessonAgent {
	const toolSet: ToolSet = {};
	for (const t of tools) toolSet[t.name] = t.tool;
	return { name, system, tools: new Map(tools.map((t) => [t.name, t])), toolSet };
}

/** The prober (quiz, ask, probe_done) and the teacher (quiz, ask, explain, plan_init). */
export function createAgents(): { prober: LessonAgent; teacher: LessonAgent } {
	return {
		prober: agent("prober", PROBER_PROMPT, [createQuizTool("prober"), createAskTool(), createProbeDoneTool()]),
		teacher: agent("teacher", TEACHER_PROMPT, [
			createQuizTool("teacher"),
			createAskTool(),
			createExplainTool(),
			createPlanInitTool(),
		]),
	};
}

const localized = new WeakMap<LessonAgent, Map<Locale, LessonAgent>>();

/** `agent` for a lesson in `locale`: its system prompt ends with the language line (the same object per pair, so requests stay byte-identical). */
export function agentFor(agent: LessonAgent, locale: Locale | undefined): LessonAgent {
	const line = locale !== undefined ? languageInstruction(locale) : undefined;
	if (line === undefined || locale === undefined) return agent;
	let byLocale = localized.get(agent);
	if (!byLocale) {
		byLocale = new Map();
		localized.set(agent, byLocale);
	}
	let out = byLocale.get(locale);
	if (!out) {
		out = { ...agent, system: `${agent.system}\n\n${line}` };
		byLocale.set(locale, out);
	}
	return out;
}
