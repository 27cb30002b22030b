/**
 * One lesson's transcript as the learner saw it: what they typed, the tutor's
 * messages and explanations, each question with its options, the answer given
 * and the verdict, the map's nodes when it was drawn, and the lesson's end.
 * Model input is read through core's display parsers (the boundary's own
 * chain); what they refuse shows as a quiet note, never raw. Our notes to the
 * model (context messages) are not shown. Every text goes through `html`.
 */

import type { LessonMessage, SessionRecord } from "../agent/index.ts";
import type { PlanToolResult } from "../core/contracts/plan.ts";
import { type OutcomeKind, outcomeOf } from "../core/outcome.ts";
import { LESSON_ENDED_PART } from "../core/phases.ts";
import { parseAskInput, parseExplainInput, parseProbeDoneInput, parseQuizInput } from "../core/tool-parts.ts";
import { type Html, html } from "./html.ts";
import { when } from "./pages.ts";

/** How a verdict reads. */
const VERDICTS: Record<OutcomeKind, string> = {
	skipped: "skipped",
	"not-sure": "not sure",
	"explain-again": "asked for another explanation",
	"first-try": "right on the first try",
	"after-help": "right, with help",
	shown: "answer shown",
	missed: "not right",
	pending: "not decided yet",
	plain: "answered",
};

interface Part {
	type: string;
	text?: string;
	state?: string;
	input?: unknown;
	output?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** The answer a result carries, with who gave it. */
function answerOf(output: unknown): { text: string; by?: string } | undefined {
	if (!isObject(output)) return undefined;
	const text = typeof output.label === "string" ? output.label : typeof output.answer === "string" ? output.answer : "";
	const by = isObject(output.by)
		? typeof output.by.name === "string"
			? output.by.name
			: String(output.by.id ?? "")
		: undefined;
	return { text, ...(by ? { by } : {}) };
}

/** One tool part as a list item (undefined: nothing the learner saw). */
function toolItem(part: Part): Html | undefined {
	if (part.type === "tool-quiz") {
		const quiz = parseQuizInput(part.input);
		const answered = part.state === "output-available" ? answerOf(part.output) : undefined;
		const verdict = part.state === "output-available" ? VERDICTS[outcomeOf(part.output).kind] : "open";
		return html`<li class="tutor" data-kind="quiz"><p class="who">Tutor · question</p>
${quiz ? html`<p class="text">${quiz.question}</p>${quiz.options && quiz.options.length > 0 ? html`<ol type="A">${quiz.options.map((o) => html`<li>${o}</li>`)}</ol>` : ""}<p class="muted">Expected: ${quiz.correctAnswer}</p>` : html`<p class="muted">(a question that could not be shown)</p>`}
${answered ? html`<p>Answer${answered.by ? html` by ${answered.by}` : ""}: <span class="text">${answered.text}</span></p>` : ""}
<p class="verdict">${verdict}</p></li>`;
	}
	if (part.type === "tool-ask") {
		const ask = parseAskInput(part.input);
		const answered = part.state === "output-available" ? answerOf(part.output) : undefined;
		return html`<li class="tutor" data-kind="ask"><p class="who">Tutor · question</p>
${ask ? html`<p class="text">${ask.question}</p>` : html`<p class="muted">(a question that could not be shown)</p>`}
${answered ? html`<p>Answer${answered.by ? html` by ${answered.by}` : ""}: <span class="text">${answered.text}</span></p>` : html`<p class="verdict">open</p>`}</li>`;
	}
	if (part.type === "tool-explain") {
		const explain = parseExplainInput(part.input);
		if (!explain) return undefined;
		return html`<li class="tutor" data-kind="explain"><p class="who">Tutor${explain.title ? html` · ${explain.title}` : ""}</p><p class="text">${explain.body}</p></li>`;
	}
	if (part.type === "tool-plan_init" && part.state === "output-available") {
		const result = part.output as PlanToolResult | undefined;
		if (!result?.ok || !result.tree) return undefined;
		return html`<li class="tutor" data-kind="map"><p class="who">Tutor · the lesson map</p><ul>${result.tree.nodes.map((n) => html`<li>${n.title}</li>`)}</ul></li>`;
	}
	if (part.type === "tool-probe_done" && part.state === "output-available") {
		const done = parseProbeDoneInput(part.input)?.assessment;
		if (!done) return undefined;
		return html`<li class="tutor" data-kind="assessment"><p class="who">Tutor · where the learner starts</p>
<ul>${done.strands.map((s) => html`<li><span class="text">${s.strand}: ${s.assessment}</span></li>`)}</ul>${done.summary ? html`<p class="text">${done.summary}</p>` : ""}</li>`;
	}
	return undefined;
}

/** The items of one message. */
function messageItems(m: LessonMessage): Html[] {
	const parts = m.parts as unknown as Part[];
	if (m.role === "user") {
		if (m.metadata?.kind !== "learner") return [];
		const text = parts
			.filter((p) => p.type === "text" && typeof p.text === "string")
			.map((p) => p.text)
			.join("\n");
		if (text === "") return [];
		const by = m.metadata.by;
		const who = by ? (by.name ?? by.id) : "Learner";
		return [
			html`<li class="learner" data-kind="learner"><p class="who">${who}${m.metadata.at ? html` · ${when(m.metadata.at)}` : ""}</p><p class="text">${text}</p></li>`,
		];
	}
	if (m.role !== "assistant") return [];
	const out: Html[] = [];
	for (const part of parts) {
		if (part.type === "text" && typeof part.text === "string" && part.text.trim() !== "")
			out.push(html`<li class="tutor" data-kind="text"><p class="who">Tutor</p><p class="text">${part.text}</p></li>`);
		else if (part.type === LESSON_ENDED_PART)
			out.push(html`<li class="tutor" data-kind="ended"><p class="verdict">The lesson ended.</p></li>`);
		else if (part.type.startsWith("tool-")) {
			const item = toolItem(part);
			if (item) out.push(item);
		}
	}
	return out;
}

/** The transcript page's body. */
export function transcriptBody(record: SessionRecord, base: string): Html {
	const items = record.messages.flatMap(messageItems);
	const learner = record.learner.name ? `${record.learner.name} (${record.learner.id})` : record.learner.id;
	return html`<p><a href="${base}/lessons">All lessons</a></p>
<dl class="cards"><div><dt>Learner</dt><dd>${learner}</dd></div><div><dt>Mode</dt><dd>${record.mode}</dd></div>
<div><dt>Started</dt><dd>${when(record.createdAt)}</dd></div><div><dt>Ended</dt><dd>${record.ended ? when(record.ended.at) : "running"}</dd></div></dl>
<h2>Transcript</h2>
${items.length === 0 ? html`<p>Nothing was said in this lesson.</p>` : html`<ol class="transcript">${items}</ol>`}`;
}
