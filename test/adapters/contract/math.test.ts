/**
 * Math in a lesson, on each chat platform (the terminal draws no pictures: it prints the TeX as the tutor wrote
 * it), with the real engine and math renderer: an explanation with a display formula shows it as a PNG whose
 * text for screen readers is its TeX, the text keeping the TeX as code; a check quiz whose options hold math
 * shows them lettered in one picture (the question's formula a picture too) with letter-only buttons; bad TeX
 * stays code and prices are not math: no picture, no error. How each platform carries a picture (Discord's
 * multipart attachments, Slack's uploads shared in the thread) is its own folder's math test.
 */

import { beforeAll, describe, expect, it } from "vitest";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { assessmentInput, planMermaid, probeQuiz } from "../../fixtures/lesson-script.ts";
import { PNG_MAGIC, QUADRATIC } from "../../fixtures/math-cards.ts";
import { type Card, CHATS, useChat } from "./chat.ts";

const explain = (id: string, body: string) => ({ name: "explain", id, input: { body, role: "concept" } });
const model = () =>
	scriptedModel([
		{ calls: [{ name: "quiz", input: probeQuiz, id: "p1" }] },
		{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
		{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
		{ calls: [explain("e1", `The roots are:\n\n$$${QUADRATIC}$$\n\nTry it.`)] },
		{ calls: [explain("e2", String.raw`Broken: $$\frac{a$$ and it costs $5 and $10.`)] },
		{
			calls: [
				{
					name: "quiz",
					id: "q1",
					input: {
						type: "check",
						nodeId: "unlike",
						question: "Which is the derivative of $x^3$?",
						options: ["$3x^2$", String.raw`$\frac{x^4}{4}$`, "$3x$"],
						correctAnswer: "$3x^2$",
					},
				},
			],
		},
	]);

const png = (picture: { bytes: Buffer | undefined }) => picture.bytes?.subarray(0, 8).toString("hex");

// Chats only: the terminal draws no pictures (it prints the TeX as written).
describe.each(CHATS)("math cards on %s", { timeout: 60_000 }, (name) => {
	const handle = useChat(name, { model: model() });
	let sessionId = "";
	const shown = (pattern: RegExp): Promise<Card> =>
		handle.chat.waitFor(() => handle.chat.find(pattern)[0], `the card saying ${pattern}`);

	beforeAll(async () => {
		const { chat } = handle;
		({ sessionId } = await chat.start("learner", "derivatives"));
		await chat.click("learner", await chat.card(sessionId, "p1"), "lh:pick:p1:1");
		await chat.card(sessionId, "q1");
		await chat.backend.tutor.idle(sessionId);
		await chat.flush();
	});

	it("an explanation's display formula is a PNG whose text for screen readers is the TeX; the text keeps it as code", async () => {
		const card = await shown(/The roots are/);
		expect(card.pictures.map((p) => p.alt)).toEqual([QUADRATIC]);
		expect(png(card.pictures[0] ?? { bytes: undefined })).toBe(PNG_MAGIC);
		expect(card.text).toContain(`\`${QUADRATIC}\``);
		expect(card.text).not.toContain("$$");
	});

	it("a quiz whose options hold math shows them lettered in a picture; the buttons carry letters only", async () => {
		const card = handle.chat.view(await handle.chat.card(sessionId, "q1"));
		expect(card.labels).toEqual(["A", "B", "C", "💡 Hint", "🔄 Explain another way", "🤷 Not sure"]);
		const alts = card.pictures.map((p) => p.alt);
		expect(alts).toContain(String.raw`A. $3x^2$ B. $\frac{x^4}{4}$ C. $3x$`);
		// The question's own formula is a picture too.
		expect(alts).toContain("x^3");
		expect(card.pictures.map(png)).toEqual(card.pictures.map(() => PNG_MAGIC));
	});

	it("bad TeX stays a code span, and prices are not math: no picture, no error", async () => {
		const card = await shown(/Broken:/);
		expect(card.pictures).toEqual([]);
		expect(card.text).toContain("`\\frac{a`");
		expect(card.text).toContain("costs $5 and $10.");
		expect(handle.chat.problems()).toEqual([]);
	});
});
