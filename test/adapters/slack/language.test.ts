/**
 * Lessons in the learner's language on Slack, through real Bolt over HTTP
 * against the fake Slack and the real engine on a mock model: the member's
 * Slack locale (users.info with include_locale) picks the language, an
 * explicit `language:` wins, an unsupported locale falls back to English, an
 * unsupported `language:` is refused. Clicks carry no locale on Slack: a
 * notice about a lesson's card is in the lesson's language.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSessionStore, createTutor, openStateStore, type StateStore } from "../../../src/agent/index.ts";
import { PROBER_PROMPT } from "../../../src/agent/prompts/index.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { replyStream } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { findControl, type Running, startAdapter, textOf } from "./harness.ts";

const GERMAN = { user: "U1", name: "ada", channel: "C1" };
const ENGLISH = { user: "U2", name: "bob", channel: "C1" };
const JAPANESE = { user: "U3", name: "kei", channel: "C1" };

describe("Slack lessons in the learner's language", { timeout: 60_000 }, () => {
	let fake: FakeSlack;
	let dir: string;
	let tutor: Tutor;
	let state: StateStore;
	let running: Running;
	const requests: LanguageModelV3CallOptions[] = [];
	let n = 0;

	const systemOf = (call: LanguageModelV3CallOptions | undefined): string => {
		const system = call?.prompt.find((m) => m.role === "system");
		return system?.role === "system" ? system.content : "";
	};
	const repliesTo = (text: RegExp) =>
		fake.waitFor(() => fake.callsTo("response_url").find((c) => text.test(String(c.params.text))), `a reply ${text}`);

	/** Start a lesson; its parent message, its session id and its quiz's Answer button. */
	async function start(who: typeof GERMAN, text: string) {
		const parents = () => [...fake.messages.values()].filter((m) => !m.threadTs);
		const before = parents().length;
		await running.sender.command("/lesson", text, who);
		const parent = await fake.waitFor(() => parents()[before], "the parent message");
		const sessionId = `slack:${fake.teamId}:C1:${parent.ts}`;
		const answer = await fake.waitFor(
			() => [...fake.messages.values()].some((m) => m.threadTs === parent.ts) && findControl(fake, `lh:open:q${n}`),
			"the quiz",
		);
		if (!answer) throw new Error("no quiz");
		await tutor.idle(sessionId);
		return { parent, sessionId, answer };
	}

	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), "lh-slack-lang-"));
		fake = await startFakeSlack({
			users: [
				{ id: "U1", name: "ada", locale: "de-DE" },
				{ id: "U2", name: "bob", locale: "en-US" },
				{ id: "U3", name: "kei", locale: "ja-JP" },
			],
		});
		const model = new MockLanguageModelV3({
			doStream: async (options) => {
				requests.push(options);
				n++;
				return {
					stream: replyStream({
						calls: [{ name: "quiz", id: `q${n}`, input: { question: `Q${n}?`, correctAnswer: "42" } }],
					}),
				};
			},
		});
		const url = `sqlite://${join(dir, "lessons.sqlite")}`;
		tutor = createTutor({ model, store: await createSessionStore(url), maxRetries: 0 });
		state = openStateStore(url, "slack");
		running = await startAdapter(fake, { tutor, renderer: stubRenderer(undefined), state });
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await tutor?.close();
		await state?.close();
		await fake?.close();
		await rm(dir, { recursive: true, force: true });
	});

	it("a member whose Slack is in German gets a German lesson, and the model is told so", async () => {
		const { parent, sessionId, answer } = await start(GERMAN, "start Brüche addieren");
		expect(textOf(parent)).toContain("Lektion: Brüche addieren");
		expect(textOf(parent)).toContain("Lektion beenden");
		expect(textOf(answer.message)).toContain("Antworten");
		expect(textOf(answer.message)).toContain("Tippe deine Antwort.");
		await repliesTo(/^Deine Lektion \(.+\) über \*Brüche addieren\* ist bereit: </);
		expect((await tutor.getSession(sessionId))?.language).toBe("de");
		expect(systemOf(requests.at(-1))).toContain("Lesson language: German (Deutsch, `de`).");
		expect(fake.callsTo("users.info").some((c) => String(c.params.include_locale) === "true")).toBe(true);

		// Someone else's click: Slack says nothing of their language, so the lesson's is used.
		await running.sender.action(ENGLISH, answer.message.ts, { action_id: answer.actionId });
		await fake.waitFor(
			() =>
				fake
					.callsTo("chat.postEphemeral")
					.find((c) => c.params.user === "U2" && /^Das ist die Einzellektion/.test(String(c.params.text))),
			"the German refusal",
		);
	});

	it("language:es wins over the member's Slack language", async () => {
		const { parent, sessionId, answer } = await start(GERMAN, "start language:es fracciones");
		expect(textOf(parent)).toContain("Lección: fracciones");
		expect(textOf(answer.message)).toContain("Responder");
		expect((await tutor.getSession(sessionId))?.language).toBe("es");
		expect(systemOf(requests.at(-1))).toContain("Lesson language: Spanish (Español, `es`).");
	});

	it("an unsupported Slack language falls back to English; an unsupported language: is refused", async () => {
		const { parent, sessionId, answer } = await start(JAPANESE, "start fractions");
		expect(textOf(parent)).toContain("Lesson: fractions");
		expect(textOf(answer.message)).toContain('"Answer"');
		expect((await tutor.getSession(sessionId))?.language).toBe("en");
		expect(systemOf(requests.at(-1))).toBe(PROBER_PROMPT);

		const parents = [...fake.messages.values()].filter((m) => !m.threadTs).length;
		await running.sender.command("/lesson", "start language:fr fractions", ENGLISH);
		await repliesTo(/I don't have `fr`; lessons run in `en` \(English\), `de` \(Deutsch\), `es` \(Español\)\./);
		expect([...fake.messages.values()].filter((m) => !m.threadTs)).toHaveLength(parents);
	});
});
