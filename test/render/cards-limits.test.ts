/**
 * Property tests: random quizzes, asks, explanations and answers of random
 * sizes always map to Discord and Slack payloads within every limit, and
 * every choice stays answerable through a decodable component id.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AnswerResult, TutorEvent } from "../../src/core/contracts/events.ts";
import type { AskToolInput, QuizToolInput } from "../../src/core/question-core.ts";
import {
	cardFromEvent,
	type DiscordMessage,
	decodeComponentId,
	discordAnswerModal,
	discordMessageText,
	type SlackMessage,
	slackAnswerModal,
} from "../../src/render/index.ts";
import { discordControls, discordModalProblems, slackModalProblems } from "./platform-limits.ts";
import { renderChecked } from "./render-checked.ts";

const word = fc.oneof(
	fc.stringMatching(/^[a-z]{1,10}$/),
	fc.constantFrom(
		"<!channel>",
		"@everyone",
		"**bold**",
		"`x<y`",
		"[l](https://e.x)",
		"🚀",
		"é",
		"<script>",
		"&",
		"|",
		"_",
	),
);
// size "max": fast-check otherwise keeps arrays and strings short, and the limits are about long ones.
const prose = (maxWords: number) =>
	fc.array(word, { minLength: 1, maxLength: maxWords, size: "max" }).map((ws) => ws.join(" "));
const code = fc
	.array(fc.stringMatching(/^[ -~]{0,120}$/), { minLength: 1, maxLength: 80, size: "max" })
	.map((lines) => `\`\`\`js\n${lines.join("\n")}\n\`\`\``);
/** Markdown of random length: prose paragraphs, code blocks, or raw unicode junk. */
const markdown = (maxParts: number) =>
	fc.oneof(
		fc
			.array(fc.oneof({ weight: 3, arbitrary: prose(120) }, { weight: 1, arbitrary: code }), {
				minLength: 1,
				maxLength: maxParts,
				size: "max",
			})
			.map((p) => p.join("\n\n")),
		fc.string({ unit: "grapheme", minLength: 1, maxLength: 3000, size: "max" }),
	);
const optionText = fc.oneof(prose(6), prose(60), fc.string({ unit: "grapheme", minLength: 1, maxLength: 400 }));
const toolCallId = fc.oneof(
	{ weight: 8, arbitrary: fc.stringMatching(/^call_[A-Za-z0-9]{4,40}$/) },
	{ weight: 1, arbitrary: fc.stringMatching(/^functions\.quiz:[0-9]{1,3}$/) },
	{ weight: 1, arbitrary: fc.stringMatching(/^[a-z]{90,130}$/) }, // too long for ids: degraded form
);
const participant = fc.record({
	id: fc.stringMatching(/^U[0-9A-Z]{1,12}$/),
	name: fc.option(fc.string({ maxLength: 120 }), { nil: undefined }),
});

/** The tutor text a card may carry above it (the adapters merge up to 500 chars; the mappers must take any). */
const lead = fc.option(fc.oneof(prose(40), markdown(2)), { nil: undefined });
const withLead = <T extends object>(card: T, text: string | undefined): T =>
	text === undefined ? card : { ...card, lead: text };

const quizInput: fc.Arbitrary<QuizToolInput> = fc
	.record({
		question: markdown(4),
		options: fc.option(
			fc.oneof(
				fc.uniqueArray(optionText, { minLength: 2, maxLength: 8, selector: (s) => s.trim().toLowerCase() }),
				fc.uniqueArray(optionText, {
					minLength: 2,
					maxLength: 140,
					size: "max",
					selector: (s) => s.trim().toLowerCase(),
				}),
			),
			{ nil: undefined },
		),
		explanation: fc.option(markdown(3), { nil: undefined }),
		type: fc.option(fc.constantFrom("predict" as const, "check" as const), { nil: undefined }),
		pick: fc.nat(),
	})
	.map(({ pick, options, ...rest }) => ({
		...rest,
		...(options !== undefined ? { options } : {}),
		correctAnswer: options !== undefined ? (options[pick % options.length] ?? "") : "free answer",
	}));

const askInput: fc.Arbitrary<AskToolInput> = fc.record({
	question: markdown(3),
	options: fc.option(
		fc.uniqueArray(fc.record({ value: fc.stringMatching(/^[a-z0-9-]{1,20}$/), label: optionText }), {
			minLength: 2,
			maxLength: 40,
			selector: (o) => o.value,
		}),
		{ nil: undefined },
	),
});

/** Every choice index reachable through these controls (buttons, selects), decoded from their ids; all must be `id`'s. */
function choicesOf(
	controls: Array<Record<string, unknown>>,
	idKey: "custom_id" | "action_id",
	id: string,
): Set<number> {
	const out = new Set<number>();
	for (const c of controls) {
		const decoded = decodeComponentId(c[idKey]);
		expect(decoded?.toolCallId).toBe(id);
		if (decoded?.verb === "pick") out.add(decoded.choice!);
		if (decoded?.verb === "select") for (const o of c.options as Array<{ value: string }>) out.add(Number(o.value));
	}
	return out;
}

/** The choices reachable through Discord buttons/selects. */
const discordChoices = (messages: DiscordMessage[], id: string): Set<number> =>
	choicesOf(
		messages.flatMap((m) => discordControls(m)),
		"custom_id",
		id,
	);

/** The choices reachable through Slack actions blocks. */
const slackChoices = (messages: SlackMessage[], id: string): Set<number> =>
	choicesOf(
		messages
			.flatMap((m) => m.blocks)
			.flatMap((b) => (b.type === "actions" ? (b.elements as unknown as Array<Record<string, unknown>>) : [])),
		"action_id",
		id,
	);

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe("cards within platform limits (property)", () => {
	it("quizzes: every payload fits, every choice is answerable, free answers open a valid modal", () => {
		const seen = { split: 0, selects: 0, degraded: 0 };
		fc.assert(
			fc.property(quizInput, toolCallId, lead, (input, id, above) => {
				const card = withLead(cardFromEvent({ type: "quiz", sessionId: "s", toolCallId: id, input })!, above);
				const { discord, slack } = renderChecked(card!);
				const n = input.options?.length ?? 0;
				const fits = `lh:select:${id}:9999`.length <= 100;
				if (discord.length > 1) seen.split++;
				if (fits && n > 5) seen.selects++;
				if (!fits || n > 125) seen.degraded++;
				if (fits && n > 0 && n <= 125) expect([...discordChoices(discord, id)].sort((a, b) => a - b)).toEqual(range(n));
				if (fits && n > 0) expect([...slackChoices(slack, id)].sort((a, b) => a - b)).toEqual(range(n));
				// Help controls (Hint, Explain another way, Not sure) ride on every quiz whose ids fit, unless
				// five select rows (over 100 choices) take Discord's every row.
				const help = (controls: Array<Record<string, unknown>>, key: "custom_id" | "action_id") =>
					controls.map((c) => decodeComponentId(c[key])).filter((d) => d?.verb === "help");
				const discordHelp = help(
					discord.flatMap((m) => discordControls(m) as never),
					"custom_id",
				);
				if (fits && n <= 100) expect(discordHelp.map((d) => d?.choice)).toEqual([0, 2, 4]);
				if (fits && n === 0) {
					expect(discordModalProblems(discordAnswerModal(id, input.question))).toEqual([]);
					expect(slackModalProblems(slackAnswerModal(id, input.question, "{}"))).toEqual([]);
				}
			}),
			{ numRuns: 150 },
		);
		for (const count of Object.values(seen)) expect(count).toBeGreaterThan(3);
	});

	it("a missed check and its second try: every payload fits; help controls decode to the quiz", () => {
		const attempt = fc.record({
			tried: fc.array(fc.oneof(optionText, markdown(2)), { minLength: 1, maxLength: 2 }),
			state: fc.constantFrom("missed" as const, "retry" as const),
		});
		fc.assert(
			fc.property(quizInput, toolCallId, attempt, ({ type: _type, ...input }, id, a) => {
				const quiz = { ...input, type: "check" as const };
				const attempts = a.tried.map((answer) => ({ answer, correct: false as const }));
				const event: TutorEvent = {
					type: "attempt",
					sessionId: "s",
					toolCallId: id,
					attempts,
					state: a.state,
					by: { id: "U1" },
					quiz,
				};
				const { discord, slack } = renderChecked(cardFromEvent(event)!);
				const ids = [...discord.flatMap((m) => discordControls(m) as Array<{ custom_id?: string }>)].map((c) =>
					decodeComponentId(c.custom_id),
				);
				for (const d of ids) expect(d?.toolCallId).toBe(id);
				const fits = `lh:select:${id}:9999`.length <= 100;
				if (fits && a.state === "missed")
					expect(ids.map((d) => `${d?.verb}:${d?.choice}`)).toEqual(["help:1", "help:0", "help:3"]);
				expect(slack.length).toBeGreaterThan(0);
			}),
			{ numRuns: 60 },
		);
	});

	it("asks: every payload fits and every option is answerable", () => {
		fc.assert(
			fc.property(askInput, toolCallId, (input, id) => {
				const card = cardFromEvent({ type: "ask", sessionId: "s", toolCallId: id, input });
				const { discord } = renderChecked(card!);
				const n = input.options?.length ?? 0;
				if (`lh:select:${id}:9999`.length <= 100 && n > 0)
					expect([...discordChoices(discord, id)].sort((a, b) => a - b)).toEqual(range(n));
			}),
			{ numRuns: 100 },
		);
	});

	it("answered quizzes and asks: one message each, within limits", () => {
		const result: fc.Arbitrary<AnswerResult> = fc.record({
			answer: fc.oneof(optionText, markdown(2)),
			correct: fc.option(fc.boolean(), { nil: undefined }),
			skipped: fc.option(fc.boolean(), { nil: undefined }),
			by: participant,
		});
		fc.assert(
			fc.property(
				fc.option(quizInput, { nil: undefined }),
				fc.option(askInput, { nil: undefined }),
				result,
				toolCallId,
				fc.nat(),
				lead,
				(quiz, ask, res, id, pick, above) => {
					const options = quiz?.options;
					const chosen =
						options !== undefined && pick % 2 === 0 ? { ...res, answer: options[pick % options.length]! } : res;
					for (const event of [
						{ type: "answered", sessionId: "s", toolCallId: id, kind: "quiz", quiz, result: chosen },
						{ type: "answered", sessionId: "s", toolCallId: id, kind: "ask", ask, result: res },
					] satisfies TutorEvent[]) {
						const card = withLead(cardFromEvent(event)!, above);
						const { discord, slack } = renderChecked(card);
						expect(discord).toHaveLength(1);
						expect(slack).toHaveLength(1);
						for (const c of discordControls(discord[0]!) as Array<{
							disabled?: boolean;
						}>)
							expect(c.disabled).toBe(true);
						expect(slack[0]!.blocks.some((b) => b.type === "actions")).toBe(false);
					}
				},
			),
			{ numRuns: 150 },
		);
	});

	it("explanations, assessments and text: every payload fits, fences stay balanced", () => {
		const explain = fc.record({
			title: fc.option(fc.string({ unit: "grapheme", maxLength: 300 }), { nil: undefined }),
			body: fc.oneof(markdown(12), fc.string({ unit: "grapheme", minLength: 1, maxLength: 8000, size: "max" })),
			role: fc.option(fc.constantFrom("intro" as const, "concept" as const, "example" as const, "recap" as const), {
				nil: undefined,
			}),
		});
		const strands = fc.array(fc.record({ strand: optionText, assessment: markdown(3) }), {
			minLength: 1,
			maxLength: 60,
		});
		let split = 0; // the generators must reach the limits, or the property proves little
		fc.assert(
			fc.property(explain, strands, markdown(6), lead, (input, s, text, above) => {
				for (const event of [
					{ type: "explain", sessionId: "s", toolCallId: "e", input },
					{ type: "assessment", sessionId: "s", toolCallId: "p", assessment: { strands: s, summary: text } },
					{ type: "text", sessionId: "s", text },
				] satisfies TutorEvent[]) {
					const plain = cardFromEvent(event);
					if (plain === undefined) continue;
					const card = plain.kind === "explain" ? withLead(plain, above) : plain;
					const { discord, slack } = renderChecked(card);
					if (discord.length > 1 && slack.some((m) => m.blocks.length > 3)) split++;
					for (const m of discord) expect((discordMessageText(m).match(/^ {0,3}```/gm) ?? []).length % 2).toBe(0);
				}
			}),
			{ numRuns: 100 },
		);
		expect(split).toBeGreaterThan(10);
	});
});
