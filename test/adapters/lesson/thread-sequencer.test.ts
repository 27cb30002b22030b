/**
 * The thread sequencer: what a lesson thread shows, in which order. A plan
 * picture drawn and moved in one turn is posted once, before the question it
 * is about; a short lead-in rides on the question or explanation it leads
 * into; nothing is held past the turn's end; sessions do not mix.
 */

import { describe, expect, it } from "vitest";
import {
	createThreadSequencer,
	LEAD_MAX_CHARS,
	type ThreadPost,
} from "../../../src/adapters/lesson/thread-sequencer.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import type { PlanTree } from "../../../src/core/contracts/plan.ts";

const S = "slack:T:C:1.2";
const tree: PlanTree = { nodes: [{ id: "a", title: "A" }], edges: [], version: 1 };
const text = (t: string, sessionId = S): TutorEvent => ({ type: "text", sessionId, text: t });
const plan = (reason: "init" | "moved" | "rewrite", current: string | null = null): TutorEvent => ({
	type: "plan",
	sessionId: S,
	tree,
	statuses: { current, visited: new Set<string>() },
	reason,
});
const quiz = (id: string, sessionId = S): TutorEvent => ({
	type: "quiz",
	sessionId,
	toolCallId: id,
	input: { question: `${id}?`, correctAnswer: "x" },
});
const explain = (id: string): TutorEvent => ({
	type: "explain",
	sessionId: S,
	toolCallId: id,
	input: { body: "Because.", role: "concept" },
});
const typing = (active: boolean): TutorEvent => ({ type: "typing", sessionId: S, active });
const ended: TutorEvent = { type: "ended", sessionId: S, reason: "completed" };

/** Feed events; a readable trace of what was posted ("text:…", "plan:init", "quiz:q1<lead>"). */
function run(events: TutorEvent[]): string[] {
	const sequencer = createThreadSequencer();
	const describe = ({ event, lead }: ThreadPost): string => {
		const tail = lead !== undefined ? `<${lead}>` : "";
		switch (event.type) {
			case "text":
				return `text:${event.text}`;
			case "plan":
				return `plan:${event.reason}`;
			case "quiz":
			case "explain":
				return `${event.type}:${event.toolCallId}${tail}`;
			default:
				return event.type;
		}
	};
	return events.flatMap((e) => sequencer.push(e).map(describe));
}

describe("createThreadSequencer", () => {
	it("posts ONE plan picture when the map is drawn and moves to the first node in the same turn, where it was drawn", () => {
		expect(
			run([
				text("Here is the map."),
				plan("init"),
				text("A guess first."),
				plan("moved", "a"),
				quiz("q1"),
				typing(false),
			]),
		).toEqual(["text:Here is the map.", "plan:moved", "quiz:q1<A guess first.>", "typing"]);
	});

	it("keeps a lead-in before the plan picture of a move, and the picture right before its question", () => {
		expect(run([text("Right! Next idea."), plan("moved", "a"), quiz("q2")])).toEqual([
			"text:Right! Next idea.",
			"plan:moved",
			"quiz:q2",
		]);
	});

	it("merges short text into the question or explanation that follows, never into other cards", () => {
		expect(run([text("Now a check."), quiz("q1")])).toEqual(["quiz:q1<Now a check.>"]);
		expect(run([text("Not quite."), explain("e1")])).toEqual(["explain:e1<Not quite.>"]);
		expect(run([text("Bye."), ended])).toEqual(["text:Bye.", "ended"]);
	});

	it("keeps long text (over the lead limit) as its own message", () => {
		const long = "x".repeat(LEAD_MAX_CHARS + 1);
		expect(run([text(long), quiz("q1")])).toEqual([`text:${long}`, "quiz:q1"]);
	});

	it("releases a held plan picture and text when the turn ends (typing off), before anything else", () => {
		expect(run([plan("init"), text("Ready when you are.")])).toEqual([]);
		expect(run([plan("init"), text("Ready when you are."), typing(false)])).toEqual([
			"plan:init",
			"text:Ready when you are.",
			"typing",
		]);
		expect(run([plan("init"), explain("e1")])).toEqual(["plan:init", "explain:e1"]);
	});

	it("posts two texts in a row in order, merging only the last into the question", () => {
		expect(run([text("One."), text("Two."), quiz("q1")])).toEqual(["text:One.", "quiz:q1<Two.>"]);
	});

	it("keeps sessions apart", () => {
		const other = "slack:T:C:9.9";
		expect(run([text("Mine.", S), quiz("q9", other), quiz("q1", S)])).toEqual(["quiz:q9", "quiz:q1<Mine.>"]);
	});

	it("ignores junk without throwing", () => {
		const sequencer = createThreadSequencer();
		expect(sequencer.push(undefined as unknown as TutorEvent)).toEqual([]);
		expect(sequencer.push({ type: "text", sessionId: S, text: 5 } as unknown as TutorEvent)).toEqual([]);
		// A text that is not a string never becomes a lead.
		expect(sequencer.push(quiz("q1")).map((p) => p.lead)).toEqual([undefined, undefined]);
	});
});
