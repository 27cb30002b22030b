import { ButtonStyle } from "discord-api-types/v10";
import { describe, expect, it } from "vitest";
import type { TutorEvent } from "../../src/core/contracts/events.ts";
import type { QuizToolInput } from "../../src/core/question-core.ts";
import {
	type AnsweredEvent,
	answeredCard as answeredCardOf,
	cardFromEvent,
	decodeComponentId,
	discordAnswerModal,
	discordMessageText,
	slackAnswerModal,
	toDiscordMessages,
	toSlackMessages,
} from "../../src/render/index.ts";
import {
	discordControls,
	discordMessageProblems,
	discordModalProblems,
	discordRows,
	slackMessageProblems,
	slackModalProblems,
} from "./platform-limits.ts";
import { renderChecked } from "./render-checked.ts";

const sessionId = "discord:g:t";
const quiz = (input: QuizToolInput, toolCallId = "call_1"): TutorEvent => ({
	type: "quiz",
	sessionId,
	toolCallId,
	input,
});

function render(event: TutorEvent) {
	const card = cardFromEvent(event);
	if (card === undefined) throw new Error("no card");
	return { card, ...renderChecked(card) };
}

const isHelp = (c: Record<string, unknown>) => String(c.custom_id ?? c.action_id ?? "").startsWith("lh:help:");
/** The answer controls of a message (help controls apart: see `helpControls`). */
const buttons = (msg: ReturnType<typeof toDiscordMessages>[number]) => discordControls(msg).filter((c) => !isHelp(c));
const helpControls = (msg: ReturnType<typeof toDiscordMessages>[number]) => discordControls(msg).filter(isHelp);
const allSlackElements = (msgs: ReturnType<typeof toSlackMessages>) =>
	msgs.flatMap((m) => m.blocks).flatMap((b) => (b.type === "actions" ? b.elements : [])) as unknown as Array<
		Record<string, unknown>
	>;
const slackElements = (msgs: ReturnType<typeof toSlackMessages>) => allSlackElements(msgs).filter((e) => !isHelp(e));

describe("question cards", () => {
	it("predict quiz with short options: framing, lettered buttons", () => {
		const { discord, slack } = render(
			quiz({ question: "What is d/dx of x²?", options: ["2x", "x", "x²"], correctAnswer: "2x", type: "predict" }),
		);
		expect(discord).toHaveLength(1);
		expect(discordMessageText(discord[0]!)).toMatch(/^\*\*Predict\*\* · Make a prediction/);
		expect(buttons(discord[0]!).map((b) => [b.label, b.custom_id])).toEqual([
			["A. 2x", "lh:pick:call_1:0"],
			["B. x", "lh:pick:call_1:1"],
			["C. x²", "lh:pick:call_1:2"],
		]);
		const els = slackElements(slack);
		expect(els.map((e) => e.action_id)).toEqual(["lh:pick:call_1:0", "lh:pick:call_1:1", "lh:pick:call_1:2"]);
		expect(JSON.stringify(slack)).toContain("Make a prediction");
	});

	it("moves long option texts into the body; buttons carry letters", () => {
		const long = "A long option that explains a whole idea in one breath, far longer than any button label can hold.";
		const { discord, slack } = render(
			quiz({ question: "Which is right?", options: [long, "Short"], correctAnswer: "Short", type: "check" }),
		);
		expect(discordMessageText(discord[0]!)).toContain(`**A.** ${long}`);
		expect(buttons(discord[0]!).map((b) => b.label)).toEqual(["A", "B"]);
		expect(slackElements(slack).map((e) => (e.text as { text: string }).text)).toEqual(["A", "B"]);
	});

	it("uses a select for 6 to 25 options, and several selects beyond", () => {
		const options = Array.from({ length: 8 }, (_, i) => `Option ${i}`);
		const { discord, slack } = render(quiz({ question: "Pick", options, correctAnswer: "Option 3" }));
		const select = buttons(discord[0]!)[0]!;
		expect(select.custom_id).toBe("lh:select:call_1:0");
		expect((select.options as Array<{ value: string }>).map((o) => o.value)).toEqual([
			"0",
			"1",
			"2",
			"3",
			"4",
			"5",
			"6",
			"7",
		]);
		expect(slackElements(slack)[0]!.type).toBe("static_select");

		const many = render(
			quiz({ question: "Pick", options: Array.from({ length: 60 }, (_, i) => `O${i}`), correctAnswer: "O1" }),
		);
		const rows = discordRows(many.discord.at(-1)!);
		expect(rows.map((r) => (r.components[0] as { custom_id: string }).custom_id)).toEqual([
			"lh:select:call_1:0",
			"lh:select:call_1:25",
			"lh:select:call_1:50",
			"lh:help:call_1:0", // the help row under them
		]);
		expect(slackElements(many.slack)).toHaveLength(1); // Slack's select holds 100
	});

	it("free answer: an Answer button that opens a modal", () => {
		const { discord, slack } = render(quiz({ question: "Explain in your words.", correctAnswer: "rate of change" }));
		const [button] = buttons(discord[0]!);
		expect(button).toMatchObject({ label: "Answer", custom_id: "lh:open:call_1", style: ButtonStyle.Primary });
		expect(decodeComponentId(button!.custom_id)).toEqual({ verb: "open", toolCallId: "call_1" });
		expect(slackElements(slack)[0]).toMatchObject({ action_id: "lh:open:call_1", style: "primary" });
		const modal = discordAnswerModal("call_1", "Explain in your words.");
		expect(discordModalProblems(modal)).toEqual([]);
		expect(modal.custom_id).toBe("lh:modal:call_1");
		expect(JSON.stringify(modal)).toContain("lh:text:call_1");
		expect(JSON.stringify(modal)).not.toContain("lh:file:");
		// With pictures allowed: an optional upload of up to `count` images in a second label.
		const withUpload = discordAnswerModal("call_1", "Explain in your words.", "en", { count: 4, maxBytes: 5 << 20 });
		expect(discordModalProblems(withUpload)).toEqual([]);
		expect(withUpload.components.at(-1)).toEqual({
			type: 18,
			label: "Photo of your working (optional)",
			description: "Up to 4 pictures (PNG, JPEG, GIF or WebP), 5 MB each.",
			component: {
				type: 19,
				custom_id: "lh:file:call_1",
				min_values: 0,
				max_values: 4,
				required: false,
				file_types: ["image"],
			},
		});
		const view = slackAnswerModal("call_1", "Explain **in** your words. <!channel>", '{"c":"C1"}');
		expect(slackModalProblems(view)).toEqual([]);
		expect(view.callback_id).toBe("lh:modal:call_1");
		expect(JSON.stringify(view)).not.toContain("<!channel>");
		expect(() => slackAnswerModal("call_1", "q", "x".repeat(3001))).toThrow(/private_metadata/);
	});

	it("ask with options and free-text ask", () => {
		const withOptions = render({
			type: "ask",
			sessionId,
			toolCallId: "call_2",
			input: {
				question: "How confident are you?",
				options: [
					{ value: "low", label: "Not very" },
					{ value: "high", label: "Very" },
				],
			},
		});
		expect(buttons(withOptions.discord[0]!).map((b) => b.label)).toEqual(["A. Not very", "B. Very"]);
		const free = render({
			type: "ask",
			sessionId,
			toolCallId: "call_3",
			input: { question: "What do you want to learn?" },
		});
		expect(buttons(free.discord[0]!)[0]).toMatchObject({ label: "Answer", custom_id: "lh:open:call_3" });
	});

	it("degrades clearly when choices cannot fit or ids are too long", () => {
		const options = Array.from({ length: 130 }, (_, i) => `O${i}`);
		const tooMany = render(quiz({ question: "Pick", options, correctAnswer: "O1" }));
		expect(tooMany.discord.every((m) => buttons(m).length === 0)).toBe(true);
		expect(helpControls(tooMany.discord.at(-1)!).map((b) => b.label)).toEqual([
			"💡 Hint",
			"🔄 Explain another way",
			"🤷 Not sure",
		]);
		expect(tooMany.discord.map((m) => discordMessageText(m)).join("\n")).toMatch(/reply in the thread with the letter/);
		const longId = render(
			quiz({ question: "Pick", options: ["a", "b"], correctAnswer: "a" }, `call_${"x".repeat(120)}`),
		);
		expect(discordControls(longId.discord[0]!)).toEqual([]);
		expect(slackElements(longId.slack)).toHaveLength(0);
		expect(discordMessageText(longId.discord[0]!)).toMatch(/Buttons are unavailable/);
	});
});

describe("answered cards", () => {
	const checkQuiz: QuizToolInput = {
		question: "What is d/dx of sin(x)?",
		options: ["cos(x)", "-cos(x)", "sin(x)"],
		correctAnswer: "cos(x)",
		explanation: "The slope of sin at 0 is 1 = cos(0).",
		type: "check",
	};
	const answered = (over: Partial<AnsweredEvent>): AnsweredEvent => ({
		type: "answered",
		sessionId,
		toolCallId: "call_1",
		kind: "quiz",
		quiz: checkQuiz,
		result: { answer: "-cos(x)", correct: false, by: { id: "u1", name: "Ada *Lovelace*" } },
		...over,
	});

	it("check quiz answered wrong twice: danger on the choice, success on the answer, reveal, controls disabled", () => {
		const { discord, slack } = render(
			answered({
				result: {
					answer: "-cos(x)",
					correct: false,
					revealed: true,
					attempts: [{ answer: "sin(x)", correct: false }],
					by: { id: "u1", name: "Ada *Lovelace*" },
				},
			}),
		);
		expect(discord).toHaveLength(1);
		const bs = buttons(discord[0]!);
		expect(bs.every((b) => b.disabled === true)).toBe(true);
		expect(bs.map((b) => b.style)).toEqual([ButtonStyle.Success, ButtonStyle.Danger, ButtonStyle.Secondary]);
		expect(discordMessageText(discord[0]!)).toContain("Ada \\*Lovelace\\*");
		expect(discordMessageText(discord[0]!)).toMatch(/not quite on the second try\./);
		expect(discordMessageText(discord[0]!)).toContain("Correct answer: **A. cos\\(x\\)**");
		expect(discordMessageText(discord[0]!)).toContain("The slope of sin at 0");
		expect(slack).toHaveLength(1);
		expect(slack[0]!.blocks.some((b) => b.type === "actions")).toBe(false);
		expect(JSON.stringify(slack)).toContain("The slope of sin at 0");
	});

	it("a wrong prediction is a guess: 'your prediction', then the answer; nothing red, no ✗", () => {
		const { discord, slack } = render(
			answered({
				quiz: { ...checkQuiz, type: "predict" },
				result: { answer: "-cos(x)", correct: false, by: { id: "u1", name: "Ada" } },
			}),
		);
		expect(buttons(discord[0]!).map((b) => b.style)).toEqual([
			ButtonStyle.Success,
			ButtonStyle.Primary,
			ButtonStyle.Secondary,
		]);
		expect(discordMessageText(discord[0]!)).toContain("**Ada**'s prediction: **B. \\-cos\\(x\\)**.");
		expect(discordMessageText(discord[0]!)).toContain("The answer: **A. cos\\(x\\)**");
		expect(discordMessageText(discord[0]!)).not.toMatch(/❌|not quite|Correct answer/);
		expect(JSON.stringify(slack)).not.toMatch(/:x:|not quite/);
	});

	it("a first wrong check shows no answer; Not sure and Explain another way say so and show none", () => {
		const once = discordMessageText(render(answered({})).discord[0]!);
		expect(once).not.toContain("Correct answer");
		const notSure = render(
			answered({ result: { answer: "Not sure", correct: false, notSure: true, by: { id: "u1", name: "Ada" } } }),
		);
		expect(discordMessageText(notSure.discord[0]!)).toContain("🤷 **Ada** was not sure.");
		expect(discordMessageText(notSure.discord[0]!)).not.toContain("Correct answer");
		expect(JSON.stringify(notSure.slack)).toContain(":shrug: *Ada* was not sure.");
		const again = render(answered({ result: { answer: "", explainAgain: true, by: { id: "u1", name: "Ada" } } }));
		expect(discordMessageText(again.discord[0]!)).toContain("asked for another explanation");
		const shown = render(
			answered({ result: { answer: "", correct: false, revealed: true, hinted: true, by: { id: "u1", name: "Ada" } } }),
		);
		expect(discordMessageText(shown.discord[0]!)).toContain("👀 **Ada** asked to see the answer with a hint.");
		expect(discordMessageText(shown.discord[0]!)).toContain("Correct answer: **A. cos\\(x\\)**");
	});

	it("free answer and ask answers show what was typed or chosen", () => {
		const free = render(
			answered({
				quiz: { question: "Say it", correctAnswer: "x" },
				result: { answer: "my words", by: { id: "u2", name: "Bo" } },
			}),
		);
		expect(buttons(free.discord[0]!)[0]).toMatchObject({ label: "Answered", disabled: true });
		expect(discordMessageText(free.discord[0]!)).toContain("**Bo** answered **my words**");
		const ask = render({
			type: "answered",
			sessionId,
			toolCallId: "call_2",
			kind: "ask",
			ask: {
				question: "Confident?",
				options: [
					{ value: "low", label: "Not very" },
					{ value: "high", label: "Very" },
				],
			},
			result: { answer: "high", label: "Very", by: { id: "u3" } },
		});
		expect(discordMessageText(ask.discord[0]!)).toContain("answered **B. Very**");
		expect(buttons(ask.discord[0]!).map((b) => b.style)).toEqual([ButtonStyle.Secondary, ButtonStyle.Primary]);
	});

	it("works when the question no longer parses", () => {
		const { discord } = render(
			answered({ quiz: undefined, result: { answer: "42", correct: true, by: { id: "u1" } } }),
		);
		expect(discordMessageText(discord[0]!)).toContain("answered **42**: correct.");
	});
});

describe("a lead-in above a card", () => {
	const lead = "Good. Now let's *check* that it stuck.";
	const check: QuizToolInput = {
		question: "Which list is sorted?",
		options: ["[1, 2]", "[2, 1]"],
		correctAnswer: "[1, 2]",
		explanation: "Ascending order.",
		type: "check",
	};
	const withLead = <T extends object>(card: T | undefined) => ({ ...(card as T), lead });

	it("sits above the question in the same message, controls unchanged (Discord and Slack)", () => {
		const card = withLead(cardFromEvent(quiz(check)));
		const [discord] = toDiscordMessages(card as never);
		expect(discordMessageProblems(discord!)).toEqual([]);
		expect(discordMessageText(discord!)).toMatch(/^Good\. Now let's \*check\* that it stuck\.\n\n\*\*Check\*\* · /);
		expect(buttons(discord!).map((b) => b.custom_id)).toEqual(["lh:pick:call_1:0", "lh:pick:call_1:1"]);
		const slack = toSlackMessages(card as never);
		expect(slack).toHaveLength(1);
		for (const m of slack) expect(slackMessageProblems(m)).toEqual([]);
		const first = slack[0]!.blocks[0] as { text?: { text?: string } };
		expect(first.text?.text).toContain("Now let's");
		expect(slack[0]!.blocks.at(-1)?.type).toBe("actions");
	});

	it("stays above the answered state, and gives way (cut, never over 2000) only when the rest needs the room", () => {
		const event: AnsweredEvent = {
			type: "answered",
			sessionId,
			toolCallId: "call_1",
			kind: "quiz",
			quiz: check,
			result: { answer: "[2, 1]", correct: false, revealed: true, by: { id: "u1", name: "Ada" } },
		};
		const [short] = toDiscordMessages({ ...answeredCardOf(event), lead });
		expect(discordMessageText(short!)).toMatch(
			/^Good\. Now let's \*check\* that it stuck\.\n\n\*\*Check\*\* · answered/,
		);
		const huge = { ...check, question: "q".repeat(2000), explanation: "e".repeat(2000) };
		const [full] = toDiscordMessages({ ...answeredCardOf({ ...event, quiz: huge }), lead: "L".repeat(500) });
		expect(discordMessageProblems(full!)).toEqual([]);
		expect(discordMessageText(full!).length).toBeLessThanOrEqual(2000);
		expect(discordMessageText(full!)).toContain("Correct answer: **A. \\[1, 2\\]**");
		const slack = toSlackMessages({ ...answeredCardOf(event), lead });
		for (const m of slack) expect(slackMessageProblems(m)).toEqual([]);
		expect(JSON.stringify(slack[0]!.blocks[0])).toContain("Now let's");
	});

	it("works on explanations too", () => {
		const card = withLead(
			cardFromEvent({ type: "explain", sessionId, toolCallId: "e1", input: { title: "Order", body: "Sorted." } }),
		);
		expect(discordMessageText(toDiscordMessages(card as never)[0]!)).toMatch(
			/^Good\. .*\n\n\*\*Order\*\*\n\nSorted\.$/s,
		);
		const blocks = toSlackMessages(card as never)[0]!.blocks;
		expect(blocks.map((b) => b.type)).toEqual(["section", "header", "section"]);
	});
});

describe("Slack's answered state (no disabled buttons there)", () => {
	const event = (over: Partial<AnsweredEvent> = {}): AnsweredEvent => ({
		type: "answered",
		sessionId: "slack:T:C:1.2",
		toolCallId: "call_1",
		kind: "quiz",
		quiz: { question: "Pick one", options: ["red", "blue", "green"], correctAnswer: "blue", type: "predict" },
		result: { answer: "red", correct: false, by: { id: "U1", name: "ada" } },
		...over,
	});

	it("still lists the choices the card had, the chosen one in bold", () => {
		const [m] = toSlackMessages(answeredCardOf(event()));
		expect(slackMessageProblems(m!)).toEqual([]);
		const context = m!.blocks.find((b) => b.type === "context") as { elements: Array<{ text: string }> } | undefined;
		expect(context?.elements[0]?.text).toBe("*A. red*\nB. blue\nC. green");
	});

	it("names who answered; a Slack user without a name is shown as a mention, not a raw id", () => {
		const named = JSON.stringify(toSlackMessages(answeredCardOf(event())));
		expect(named).toContain("*ada*'s prediction: *A. red*.");
		const skipped = toSlackMessages(
			answeredCardOf(event({ result: { answer: "", skipped: true, by: { id: "U1" } } })),
		)[0]!;
		expect(JSON.stringify(skipped.blocks)).toContain("Skipped: <@U1> moved on.");
		expect(skipped.text).toBe("Predict: skipped");
		// Not a Slack id: shown as text (escaped), never as a mention.
		const odd = JSON.stringify(
			toSlackMessages(answeredCardOf(event({ result: { answer: "red", by: { id: "<!channel>" } } }))),
		);
		expect(odd).not.toContain("<!channel>");
	});
});

describe("other cards", () => {
	it("explain: title, markdown body split into messages, fences intact", () => {
		const code = `\`\`\`python\n${Array.from({ length: 120 }, (_, i) => `print(${i})  # line ${i}`).join("\n")}\n\`\`\``;
		const body = `${"Intro sentence that sets the scene. ".repeat(120)}\n\n${code}\n\nDone.`;
		const { discord, slack } = render({
			type: "explain",
			sessionId,
			toolCallId: "e1",
			input: { title: "Loops", body, role: "example" },
		});
		expect(discord.length).toBeGreaterThan(1);
		expect(discordMessageText(discord[0]!).startsWith("**Example: Loops**")).toBe(true);
		for (const m of discord) expect((discordMessageText(m).match(/^```/gm) ?? []).length % 2).toBe(0);
		// 120 lines is past the code bound: a preview in the text, the whole code as snippet.py on the last message.
		expect(discord.map((m) => discordMessageText(m)).join("\n")).toContain("```python\nprint(0)");
		expect(discord.at(-1)!.files?.map((f) => f.name)).toEqual(["snippet.py"]);
		expect(String(discord.at(-1)!.files?.[0]?.data)).toContain("print(119)  # line 119");
		expect(slack[0]!.blocks[0]).toMatchObject({ type: "header" });
		expect(slack.at(-1)!.files?.map((f) => f.filename)).toEqual(["snippet.py"]);
	});

	it("explain: a recap titled 'Recap…' is not framed twice", () => {
		const { discord, slack } = render({
			type: "explain",
			sessionId,
			toolCallId: "e2",
			input: { title: "Recap: binary search", body: "Three things.", role: "recap" },
		});
		expect(discordMessageText(discord[0]!).startsWith("**Recap: binary search**")).toBe(true);
		expect(slack[0]!.blocks[0]).toMatchObject({ type: "header", text: { text: "Recap: binary search" } });
		const untitled = render({ type: "explain", sessionId, toolCallId: "e3", input: { body: "x", role: "recap" } });
		expect(discordMessageText(untitled.discord[0]!).startsWith("**Recap**")).toBe(true);
	});

	it("assessment: strands with the learner's edge", () => {
		const { discord, slack } = render({
			type: "assessment",
			sessionId,
			toolCallId: "p1",
			assessment: {
				strands: [
					{ strand: "Limits", assessment: "Solid on epsilon-free intuition." },
					{ strand: "Algebra", assessment: "Slips on negative exponents." },
				],
				summary: "Start at the derivative as a rate.",
			},
		});
		expect(discordMessageText(discord[0]!)).toContain("**Where you are now**");
		expect(discordMessageText(discord[0]!)).toContain("**Algebra**\nSlips on negative exponents.");
		expect(JSON.stringify(slack)).toContain("*Limits*");
	});

	it("closes a code fence a model left open, so it cannot swallow the next part", () => {
		const { discord } = render({
			type: "assessment",
			sessionId,
			toolCallId: "p",
			assessment: {
				strands: [{ strand: "Loops", assessment: "```js\nfor (;;) {}\n```\n\nFine." }],
				summary: "```js\n```\n```",
			},
		});
		const content = discord.map((m) => discordMessageText(m)).join("\n");
		expect((content.match(/^```/gm) ?? []).length % 2).toBe(0);
		// The strand's heading comes after the summary's block is closed: it is not inside code.
		expect(content).toMatch(/```\n```\n\n\*\*Loops\*\*/);
	});

	it("text, error and ended events; no card for plan and typing", () => {
		expect(render({ type: "text", sessionId, text: "Hello @everyone" }).discord[0]!.allowed_mentions).toEqual({
			parse: [],
		});
		expect(
			discordMessageText(
				render({ type: "error", sessionId, code: "model", message: "The model is busy.", retryable: true }).discord[0]!,
			),
		).toBe("⚠️ The model is busy. Reply to try again.");
		// A message that already says how to retry is not told twice.
		const told = "The model is not answering. Send a message to try again.";
		expect(
			discordMessageText(
				render({ type: "error", sessionId, code: "model", message: told, retryable: true }).discord[0]!,
			),
		).toBe(`⚠️ ${told}`);
		expect(discordMessageText(render({ type: "ended", sessionId, reason: "completed" }).discord[0]!)).toMatch(
			/Lesson complete/,
		);
		expect(cardFromEvent({ type: "typing", sessionId, active: true })).toBeUndefined();
		expect(
			cardFromEvent({
				type: "plan",
				sessionId,
				tree: { nodes: [], edges: [], version: 1 },
				statuses: { current: null, visited: new Set() },
				reason: "init",
			}),
		).toBeUndefined();
		expect(cardFromEvent({ type: "text", sessionId, text: "  " })).toBeUndefined();
	});
});

describe("a hint card", () => {
	it("says the engine's fallback hint in the lesson's language; a model's hint as it came", async () => {
		const { GENERIC_HINT } = await import("../../src/core/struggle.ts");
		const hint = (text: string, locale: "en" | "de") =>
			cardFromEvent({ type: "hint", sessionId: "s", toolCallId: "q", text } as TutorEvent, locale);
		expect(hint(GENERIC_HINT, "de")).toMatchObject({
			kind: "text",
			text: expect.stringMatching(/^💡 \*\*Hinweis:\*\* Geh zurück/),
		});
		expect(hint(GENERIC_HINT, "en")).toMatchObject({ text: `💡 **Hint:** ${GENERIC_HINT}` });
		expect(hint("Denk an die Mitte.", "de")).toMatchObject({ text: "💡 **Hinweis:** Denk an die Mitte." });
	});
});
