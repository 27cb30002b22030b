/**
 * What must hold after many Slack lessons ran on several processes, read from the shared store
 * (the final transcripts) and from what the fake Slack was asked to post:
 * - every answer a process acknowledged is in its lesson's transcript (the quiz or question's
 *   tool result carries it);
 * - no quiz or question card is posted twice in a thread, and no tutor message twice (a turn run
 *   twice posts its text and its card again);
 * - no step of the scripted lesson is in a transcript twice (a turn run twice stores it again);
 * - every lesson ended (completed) with its recap stored and posted.
 * Each failure is one sentence naming the lesson's channel.
 */

import type { LessonMessage, SessionRecord } from "../../src/agent/index.ts";
import type { FakeSlack, RecordedCall } from "../../testkit/fakes/slack.ts";
import type { ConcurrentLesson } from "../fixtures/slack/drive-concurrent.ts";

type ToolPart = {
	type: string;
	toolCallId: string;
	state?: string;
	input?: Record<string, unknown>;
	output?: Record<string, unknown>;
};

function toolParts(messages: LessonMessage[]): ToolPart[] {
	return messages.flatMap((m) => m.parts as unknown as ToolPart[]).filter((p) => p.type.startsWith("tool-"));
}

/** The tool call id inside a control's action id (`lh:pick:<id>:<n>`, `lh:text:<id>`, `lh:help:<id>:<n>`). */
function callIdOf(actionId: string): string {
	return actionId.split(":")[2] ?? "";
}

/** Where the answer went wrong, or undefined when the transcript carries it. */
function answerProblem(answer: ConcurrentLesson["answers"][number], parts: ToolPart[]): string | undefined {
	const id = callIdOf(answer.actionId);
	const part = parts.find((p) => p.toolCallId === id);
	if (!part) return `no tool call ${id} in the transcript`;
	const output = part.output;
	if (part.state !== "output-available" || !output) return `${id} has no result (state ${part.state})`;
	const kind = answer.actionId.split(":")[1];
	if (kind === "help") return output.revealed === true ? undefined : `${id}: the shown answer is not recorded`;
	if (kind === "text") return output.answer === answer.value ? undefined : `${id}: answer ${String(output.answer)}`;
	// A click or a pick: the n-th option (a select's value is the option's text or index).
	const options = (part.input?.options ?? []) as string[];
	const n = Number(answer.actionId.split(":")[3] ?? answer.value);
	const expected = answer.actionId.startsWith("lh:pick:") ? options[n] : undefined;
	if (typeof output.answer !== "string") return `${id}: no answer recorded`;
	if (expected !== undefined && output.answer !== expected) return `${id}: answer ${output.answer}, picked ${expected}`;
	return undefined;
}

/** The posts the bot made in a thread, in order. */
function postsIn(fake: FakeSlack, channel: string, threadTs: string): RecordedCall[] {
	return fake
		.callsTo("chat.postMessage")
		.filter((c) => c.ok && c.params.channel === channel && c.params.thread_ts === threadTs);
}

/** The tool call ids whose controls a posted message carries. */
function cardIds(call: RecordedCall): string[] {
	const blocks = (call.params.blocks ?? []) as Array<{ type?: string; elements?: Array<{ action_id?: string }> }>;
	const ids = blocks
		.filter((b) => b.type === "actions")
		.flatMap((b) => b.elements ?? [])
		.map((e) => e.action_id ?? "")
		.filter((a) => /^lh:(pick|open|text):/.test(a))
		.map(callIdOf);
	return [...new Set(ids)];
}

/** Every problem of one lesson (empty when it is right). */
export function lessonProblems(fake: FakeSlack, lesson: ConcurrentLesson, record: SessionRecord | undefined): string[] {
	const where = lesson.actor.channel;
	const problems: string[] = [];
	if (lesson.error) problems.push(`${where}: the learner stopped: ${lesson.error}`);
	if (!record) return [...problems, `${where}: no session stored for thread ${lesson.threadTs}`];
	const parts = toolParts(record.messages);
	for (const answer of lesson.answers.filter((a) => a.accepted)) {
		const problem = answerProblem(answer, parts);
		if (problem) problems.push(`${where}: accepted answer ${answer.actionId} (${answer.value}) lost: ${problem}`);
	}
	// A step of the script is one tool call id prefix (demo-<agent>-<step>-): stored once.
	const steps = new Map<string, number>();
	for (const p of parts) {
		const step = /^(demo-(probe|teach)-\d+)-/.exec(p.toolCallId)?.[1];
		if (step && !(p.output && (p.output as { ok?: unknown }).ok === false)) steps.set(step, (steps.get(step) ?? 0) + 1);
	}
	for (const [step, n] of steps) if (n > 1) problems.push(`${where}: step ${step} stored ${n} times`);
	const posts = postsIn(fake, lesson.actor.channel, lesson.threadTs);
	const cards = new Map<string, number>();
	const questions = new Map<string, number>();
	for (const post of posts) {
		for (const id of cardIds(post)) cards.set(id, (cards.get(id) ?? 0) + 1);
		const step = cardIds(post)
			.map((id) => /^(demo-(probe|teach)-\d+)-/.exec(id)?.[1])
			.find(Boolean);
		if (step) questions.set(step, (questions.get(step) ?? 0) + 1);
	}
	for (const [id, n] of cards) if (n > 1) problems.push(`${where}: the card of ${id} posted ${n} times`);
	for (const [step, n] of questions) if (n > 1) problems.push(`${where}: the question of ${step} posted ${n} times`);
	// A solo lesson's explanations (the recap too) stream into the thread instead (chat.startStream …).
	const streamed = [...fake.streams.values()]
		.filter((s) => s.channel === lesson.actor.channel && s.threadTs === lesson.threadTs)
		.map((s) => s.parts.join(""));
	const texts = new Map<string, number>();
	for (const text of [...posts.map((post) => String(post.params.text ?? "")), ...streamed])
		if (text) texts.set(text, (texts.get(text) ?? 0) + 1);
	for (const [text, n] of texts) if (n > 1) problems.push(`${where}: posted ${n} times: ${text.slice(0, 80)}`);
	if (record.ended?.reason !== "completed")
		problems.push(`${where}: the lesson did not complete (${record.ended?.reason})`);
	const recap = parts.find((p) => p.type === "tool-explain" && p.input?.role === "recap");
	if (recap?.state !== "output-available") problems.push(`${where}: no recap stored`);
	const title = String(recap?.input?.title ?? "");
	if (
		recap &&
		!posts.some((p) => String(p.params.text ?? "").includes(title)) &&
		!streamed.some((t) => t.includes(title))
	)
		problems.push(`${where}: the recap "${title}" was not posted`);
	return problems;
}

/** The session of a lesson's thread. */
export function sessionIdOf(fake: FakeSlack, lesson: ConcurrentLesson): string {
	return `slack:${fake.teamId}:${lesson.actor.channel}:${lesson.threadTs}`;
}
