/**
 * A lesson grounded in the learner's PDF, on every platform (made in the test with pdf-lib: four pages, three
 * headings), taught by the built-in demo model: Discord's `material` attachment option, a Slack mention that
 * shares the file, the terminal's `--material`. The map's node titles are the PDF's headings, in its order; an
 * explanation's card cites a page (📄 name, p. N) that holds the words it quotes; a question outside the material
 * is answered without a citation.
 */

import { MockLanguageModelV3 } from "ai/test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "../../../src/agent/models/demo-model.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { extractPdf, normalizeForCitation } from "../../../src/material/index.ts";
import { chapterPdf } from "../../material/pdf-fixtures.ts";
import { CHATS, useChat } from "./chat.ts";
import { citedWordsHold } from "./citations.ts";
import { openTerminal } from "./terminal.ts";

const NAME = "chapter-8.pdf";
const HEADINGS = ["Light Reactions", "The Calvin Cycle", "Limiting Factors"];
const OFF_MATERIAL = "What is quantum gravity?";

const demo = () => {
	const model = createDemoModel();
	return new MockLanguageModelV3({ doStream: (options) => model.doStream(options) });
};

let pdf: Uint8Array;
let pages: string[];
beforeAll(async () => {
	pdf = await chapterPdf();
	const doc = await extractPdf(pdf);
	if (!doc.ok) throw new Error(doc.message);
	pages = doc.pages.map((p) => normalizeForCitation(p.text));
});

type Explain = Extract<TutorEvent, { type: "explain" }>;
const explains = (events: TutorEvent[]) => events.filter((e): e is Explain => e.type === "explain");

describe.each(CHATS)("a lesson on the learner's PDF on %s", (name) => {
	const handle = useChat(name, { model: demo() });

	it("maps its headings, cites a page holding the quoted words, and answers off the material without a citation", async () => {
		const { chat } = handle;
		const { sessionId, reply } = await chat.start("learner", "photosynthesis", { material: { name: NAME, data: pdf } });
		expect(reply.text).toContain(`Teaching from ${NAME} (4 pages)`);
		const plan = await chat.waitFor(
			() => chat.events.find((e) => e.type === "plan" && e.sessionId === sessionId),
			"the lesson map",
		);
		expect(plan.type === "plan" && plan.tree.nodes.map((n) => n.title)).toEqual(HEADINGS);

		// The first explanation cites page 1, and the card shows it under the words it quotes from there.
		const first = await chat.waitFor(
			() => explains(chat.events).find((e) => e.sessionId === sessionId),
			"the first explanation",
		);
		expect(first.citation).toEqual({ source: NAME, page: 1 });
		const card = await chat.waitFor(
			() => chat.posts(sessionId).find((p) => p.includes(`📄 ${NAME}, p. 1`)),
			"the cited card",
		);
		expect(citedWordsHold(card, NAME, pages)).toEqual({ page: 1, holds: true });

		// The check: which section says it. The right one is the first heading.
		const quiz = await chat.waitFor(
			() => chat.events.find((e) => e.type === "quiz" && e.sessionId === sessionId),
			"the check",
		);
		const quizCard = await chat.card(sessionId, quiz.type === "quiz" ? quiz.toolCallId : "");
		await chat.click("learner", quizCard, `lh:pick:${quiz.type === "quiz" ? quiz.toolCallId : ""}:0`);
		await chat.waitFor(
			() => explains(chat.events).find((e) => e.citation?.page === 3),
			"the second section's explanation (page 3)",
		);
		await chat.backend.tutor.idle(sessionId);

		// A question the material does not cover: answered, without a citation.
		const before = explains(chat.events).length;
		await chat.say("learner", sessionId, OFF_MATERIAL);
		const off = await chat.waitFor(() => explains(chat.events).slice(before)[0], "the answer to the question");
		expect(off.citation).toBeUndefined();
		expect(off.input.body).toContain(`${NAME} does not cover that`);
		const offCard = await chat.waitFor(
			() => chat.posts(sessionId).find((p) => p.includes(`${NAME} does not cover that`)),
			"the uncited card",
		);
		expect(offCard).not.toContain("📄");
		await chat.backend.tutor.idle(sessionId);
		expect(chat.problems()).toEqual([]);
	}, 60_000);
});

describe("a lesson on the learner's PDF in the terminal", () => {
	it("maps its headings, cites a page holding the quoted words, and answers off the material without a citation", async () => {
		const terminal = await openTerminal(demo(), "photosynthesis", { name: NAME, data: pdf });
		try {
			await terminal.shows(`Teaching from ${NAME} (4 pages)`);
			await terminal.shows(`📄 ${NAME}, p. 1`);
			const out = terminal.output();
			for (const heading of HEADINGS) expect(out).toContain(`○ ${heading}`);
			const explained = out.slice(out.indexOf("Light Reactions\n───"));
			expect(citedWordsHold(explained, NAME, pages)).toEqual({ page: 1, holds: true });
			await terminal.type("A", `📄 ${NAME}, p. 3`);
			await terminal.shows("Which section");
			const answer = await terminal.type(OFF_MATERIAL, "Back to where we were.");
			expect(answer).toContain(`${NAME} does not cover that`);
			expect(answer).not.toContain("📄");
			const plan = terminal.events.find((e) => e.type === "plan");
			expect(plan?.type === "plan" && plan.tree.nodes.map((n) => n.title)).toEqual(HEADINGS);
		} finally {
			await terminal.close();
		}
	}, 60_000);
});
