/**
 * The chat platforms under the contract suite: Discord (discord.ts: the real discord.js client against the fake
 * Discord) and Slack (slack.ts: real Bolt over signed HTTP against the fake Slack), each with the real tutor, the
 * learning service and SQLite files (test/fixtures/profile-stack.ts). A contract test speaks to one `Chat`
 * (types.ts): people start lessons, run `/lesson …` lines, type in a lesson's thread and click a card's controls;
 * it reads what each person saw. What differs by platform (option names, thread ids, where a private reply goes)
 * stays in those two files.
 */

import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll } from "vitest";
import { createBudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { type ScriptedReply, scriptedModel } from "../../../testkit/model-stream.ts";
import { testClock } from "../../fixtures/profile-stack.ts";
import { onDiscord } from "./discord.ts";
import { onSlack } from "./slack.ts";
import type { Card, Chat, ChatOptions, PersonKey } from "./types.ts";

export type { Card, Chat, ChatOptions, Delivery, Person, PersonKey } from "./types.ts";

/** The chat platforms, for `describe.each`. */
export const CHATS = [["discord"], ["slack"]] as const;

/** Open `name` before a describe's tests and close it after; the handle is filled in by then. */
export function useChat(name: "discord" | "slack", options: ChatOptions): { chat: Chat } {
	const handle = {} as { chat: Chat };
	const budgets = options.budgets ? createBudgetRouter() : undefined;
	beforeAll(async () => {
		const open = name === "discord" ? onDiscord : onSlack;
		handle.chat = await open(options, options.clock ?? testClock(), budgets);
	}, 60_000);
	afterAll(async () => {
		await handle.chat?.close();
	});
	return handle;
}

/** Poll an async check (bounded by count) until it gives a value. */
export async function until<T>(check: () => Promise<T | undefined | false>, what: string): Promise<T> {
	for (let i = 0; i < 400; i++) {
		const value = await check();
		if (value !== undefined && value !== false) return value;
		await new Promise((done) => setTimeout(done, 25));
	}
	throw new Error(`never happened: ${what}`);
}

/** The answer a tool call got, from the events. */
export const answered = (events: TutorEvent[], toolCallId: string) =>
	events.find(
		(e): e is Extract<TutorEvent, { type: "answered" }> => e.type === "answered" && e.toolCallId === toolCallId,
	)?.result;

/** A model whose script a test replaces between lessons; `use` returns the script's own model (its calls). */
export function switchable(first: ScriptedReply[] = []) {
	let script = scriptedModel(first);
	return {
		model: new MockLanguageModelV3({ doStream: (options) => script.doStream(options) }),
		use(replies: ScriptedReply[]) {
			script = scriptedModel(replies);
			return script;
		},
	};
}

/** The learning service's key of a person (profiles, review items). */
export const learnerKey = (chat: Chat, who: PersonKey) =>
	chat.name === "discord" ? `discord:${chat.people[who].id}` : `slack:${chat.community}:${chat.people[who].id}`;

/** Click `control` and wait for the private notice to `who` it brings (matching `pattern`); its text. */
export async function noticeOf(chat: Chat, who: PersonKey, card: Card, control: string, pattern: RegExp) {
	const before = chat.notices(who).length;
	await chat.click(who, card, control);
	return chat.waitFor(
		() =>
			chat
				.notices(who)
				.slice(before)
				.find((n) => pattern.test(n)),
		`${pattern} to ${who}`,
	);
}

/** A quiz a stand-in tutor asks in a lesson, as the engine would emit it (the first option is right). */
export const quizIn = (
	tutor: { emit(event: TutorEvent): Promise<void> },
	sessionId: string,
	toolCallId: string,
	options: string[],
) =>
	tutor.emit({
		type: "quiz",
		sessionId,
		toolCallId,
		input: { question: `${options.join(" or ")}?`, options, correctAnswer: options[0] ?? "" },
	});
