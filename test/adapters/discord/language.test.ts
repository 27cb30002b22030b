/**
 * Lessons in the learner's language on Discord: the real discord.js client
 * against the fake Discord, the real engine on a mock model. A German client
 * (`locale: "de"`) gets German buttons, cards and notices and the model is told
 * to teach in German; `language:` wins over the client's locale; an
 * unsupported locale falls back to English; a member's private notice uses
 * their own locale.
 */

import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { discordLocalizations, lessonCommands } from "../../../src/adapters/discord/commands.ts";
import { PROBER_PROMPT } from "../../../src/agent/prompts/index.ts";
import { replyStream } from "../../../testkit/model-stream.ts";
import { customIds, useStack, waitForControl } from "./helpers.ts";

/** Every request gets a free-answer quiz (an "Answer" button); the requests are kept. */
const requests: LanguageModelV3CallOptions[] = [];
let n = 0;
const model = new MockLanguageModelV3({
	doStream: async (options) => {
		requests.push(options);
		n++;
		return {
			stream: replyStream({
				calls: [{ name: "quiz", id: `q${n}`, input: { question: `Frage ${n}?`, correctAnswer: "42" } }],
			}),
		};
	},
});
const { fake, stack } = useStack(model);

const systemOf = (call: LanguageModelV3CallOptions | undefined): string => {
	const system = call?.prompt.find((m) => m.role === "system");
	return system?.role === "system" ? system.content : "";
};

/** Start a lesson as `user`; the new thread's id once its quiz is posted. */
async function startAs(user: typeof fake.users.learner, options: Record<string, string>): Promise<string> {
	const before = fake.createdThreads().length;
	fake.slash({ user, channelId: fake.ids.general, subcommand: "start", options });
	await fake.waitFor(() => fake.createdThreads().length > before || undefined, "the lesson thread");
	const thread = fake.createdThreads()[before];
	if (!thread) throw new Error("no thread");
	await waitForControl(fake, thread.id, "lh:open:");
	return thread.id;
}

const sessionOf = (threadId: string) => `discord:${fake.guild.id}:${threadId}`;

describe("Discord lessons in the learner's language", () => {
	it("a German client starts a German lesson: intro, card, buttons, notices; the model is told to teach in German", async () => {
		const german = { ...fake.users.learner, locale: "de" };
		const threadId = await startAs(german, { topic: "Brüche addieren" });
		const messages = fake.channelMessages(threadId);
		expect(messages[0]?.content).toContain("eine Lektion für <@");
		expect(messages[0]?.content).toContain("Einzellektion: nur <@");
		const quiz = await waitForControl(fake, threadId, "lh:open:");
		expect(quiz.content).toContain("**Quiz** · Antworte so gut du kannst");
		expect(quiz.content).toContain("Tippe deine Antwort.");
		const button = (quiz.components as Array<{ components: Array<{ label?: string }> }>)[0]?.components[0];
		expect(button?.label).toBe("Antworten");
		// The start reply is German too.
		await fake.waitFor(
			() => fake.ephemeralsFor(german).some((m) => m.content.includes("ist bereit")) || undefined,
			"the German start reply",
		);
		// The model request carries the language line in its system prompt.
		await stack.tutor.idle(sessionOf(threadId));
		const system = systemOf(requests.at(-1));
		expect(system.startsWith(PROBER_PROMPT)).toBe(true);
		expect(system).toContain("Lesson language: German (Deutsch, `de`).");
		expect((await stack.tutor.getSession(sessionOf(threadId)))?.language).toBe("de");

		// The answer form opens in the lesson's language.
		const open = fake.click({ user: german, messageId: quiz.id, customId: customIds(quiz)[0] ?? "" });
		await fake.waitFor(() => open.modal, "the modal");
		expect(open.modal?.title).toBe("Deine Antwort");

		// Another member, with an English client, is refused in English (their own locale).
		fake.click({ user: fake.users.other, messageId: quiz.id, customId: customIds(quiz)[0] ?? "" });
		await fake.waitFor(() => fake.ephemeralsFor(fake.users.other).length > 0 || undefined, "the refusal");
		expect(fake.ephemeralsFor(fake.users.other)[0]?.content).toMatch(/^This is <@\d+>'s solo lesson/);

		// A German member who is not the learner gets the same refusal in German.
		const otherGerman = { ...fake.users.other, locale: "de" };
		fake.click({ user: otherGerman, messageId: quiz.id, customId: customIds(quiz)[0] ?? "" });
		await fake.waitFor(
			() => fake.ephemeralsFor(otherGerman).some((m) => m.content.startsWith("Das ist die Einzellektion")) || undefined,
			"the German refusal",
		);

		// The lesson's end: German closing line and /lesson end notice.
		fake.slash({ user: german, channelId: threadId, subcommand: "end" });
		await fake.waitFor(
			() =>
				fake.channelMessages(threadId).some((m) => m.content.includes("Starte jederzeit eine neue Lektion")) ||
				undefined,
			"the German closing line",
		);
	});

	it("the explicit language option wins over the client's locale", async () => {
		const german = { ...fake.users.learner, locale: "de" };
		const threadId = await startAs(german, { topic: "fracciones", language: "es" });
		expect(fake.channelMessages(threadId)[0]?.content).toContain("una lección para <@");
		const quiz = await waitForControl(fake, threadId, "lh:open:");
		const button = (quiz.components as Array<{ components: Array<{ label?: string }> }>)[0]?.components[0];
		expect(button?.label).toBe("Responder");
		await stack.tutor.idle(sessionOf(threadId));
		expect(systemOf(requests.at(-1))).toContain("Lesson language: Spanish (Español, `es`).");
		expect((await stack.tutor.getSession(sessionOf(threadId)))?.language).toBe("es");
		await stack.tutor.handle(sessionOf(threadId), { type: "end", by: { id: german.id }, privileged: true });
	});

	it("an unsupported locale falls back to English, with the system prompt unchanged", async () => {
		const japanese = { ...fake.users.learner, locale: "ja" };
		const threadId = await startAs(japanese, { topic: "fractions" });
		expect(fake.channelMessages(threadId)[0]?.content).toContain("a lesson for <@");
		const quiz = await waitForControl(fake, threadId, "lh:open:");
		const button = (quiz.components as Array<{ components: Array<{ label?: string }> }>)[0]?.components[0];
		expect(button?.label).toBe("Answer");
		await stack.tutor.idle(sessionOf(threadId));
		expect(systemOf(requests.at(-1))).toBe(PROBER_PROMPT);
		expect((await stack.tutor.getSession(sessionOf(threadId)))?.language).toBe("en");
	});

	it("registers German and Spanish descriptions and a language option with choices", () => {
		const lesson = lessonCommands[0] as { description_localizations?: Record<string, string>; options?: unknown[] };
		expect(lesson.description_localizations?.de).toMatch(/Tutor/);
		expect(Object.keys(lesson.description_localizations ?? {}).sort()).toEqual(["de", "es-419", "es-ES"]);
		const start = (
			lesson.options as Array<{ name: string; options?: Array<{ name: string; choices?: unknown[] }> }>
		).find((o) => o.name === "start");
		const language = start?.options?.find((o) => o.name === "language");
		expect(language?.choices).toEqual([
			{ name: "English", value: "en" },
			{ name: "Deutsch", value: "de" },
			{ name: "Español", value: "es" },
		]);
		for (const text of Object.values(discordLocalizations("cmd.usage"))) expect(text.length).toBeLessThanOrEqual(100);
	});
});
